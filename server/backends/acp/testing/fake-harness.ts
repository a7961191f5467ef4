/**
 * The ACP adapter's tests against the fake agent (./fake-agent.mjs, v1 only, or v1 and v2 with
 * FAKE_V2=1), spawned through the real supervisor: the workspace, adapters made and stopped per
 * test, a sink that starts a session's state from the adapter's snapshot as the hub does, and a
 * prompt run to its end.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Session, ToolBlock } from "@/lib/model";
import { stateFromSnapshot, type SessionState } from "@/lib/timeline/reducer";
import { until } from "@/testkit/until";
import { SqliteStore } from "../../../store/sqlite-store";
import { RecordingSink } from "../../../../testkit/adapter-harness";
import { AcpAdapter, type AcpAdapterOptions } from "../adapter";

export const FAKE = path.join(import.meta.dirname, "fake-agent.mjs");

/** Like the hub: a session's state starts from the adapter's snapshot when it is first opened. */
export class HubLikeSink extends RecordingSink {
  adapter: AcpAdapter | undefined;
  async openSession(_b: string, id: string) {
    if (!this.states.has(id) && this.adapter)
      this.states.set(id, stateFromSnapshot(await this.adapter.loadSession(id)));
  }
}

/** The last assistant message's text. */
export const text = (s: SessionState) =>
  s.messages
    .filter((m) => m.role === "assistant")
    .at(-1)
    ?.blocks.filter((b) => b.kind === "text")
    .map((b) => (b.kind === "text" ? b.text : ""))
    .join("") ?? "";
export const tools = (s: SessionState) =>
  s.messages.flatMap((m) => m.blocks).filter((b): b is ToolBlock => b.kind === "tool");

/** Registers the per-file hooks (a workspace with a file and a link out of it) and returns the helpers. */
export function fakeAgentHarness(base: { env?: Record<string, string> } = {}) {
  let root = "";
  let workspace = "";
  const adapters: AcpAdapter[] = [];

  beforeAll(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-acp-")));
    workspace = path.join(root, "ws");
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, "note.txt"), "line1\nline2\nline3\n");
    fs.writeFileSync(path.join(root, "secret.txt"), "top secret");
    fs.symlinkSync(path.join(root, "secret.txt"), path.join(workspace, "link-out.txt"));
  });
  afterEach(async () => {
    await Promise.all(adapters.splice(0).map((a) => a.stop()));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  function make(
    opts: Partial<AcpAdapterOptions> & { env?: Record<string, string> } = {},
    sink = new HubLikeSink(),
    store = new SqliteStore(":memory:"),
  ) {
    const adapter = new AcpAdapter(
      {
        id: "fake",
        label: "Fake",
        command: [process.execPath, FAKE],
        cwd: workspace,
        workspace,
        store,
        restart: { initialMs: 100, maxMs: 400 },
        cancelGraceMs: 500,
        ...opts,
        env: {
          FAKE_STATE: path.join(root, `state-${Math.random().toString(36).slice(2)}.json`),
          SECRET_TOKEN: "s3cr3t",
          ...base.env,
          ...opts.env,
        },
      },
      sink,
    );
    sink.adapter = adapter;
    adapters.push(adapter);
    return { adapter, sink, store };
  }

  async function started(opts: Parameters<typeof make>[0] = {}, sink?: HubLikeSink, store?: SqliteStore) {
    const m = make(opts, sink, store);
    await m.adapter.start();
    await m.adapter.ready();
    return m;
  }

  async function turn(adapter: AcpAdapter, sink: HubLikeSink, s: Session, prompt: string) {
    const before = sink.events.length;
    await adapter.prompt(s.id, { parts: [{ type: "text", text: prompt }] });
    await until(
      () =>
        sink.events
          .slice(before)
          .some((e) => e.sessionId === s.id && e.event.type === "session.status" && e.event.status === "idle"),
      `turn "${prompt}"`,
      15_000,
    );
    return sink.state(s.id);
  }

  return { paths: () => ({ root, workspace }), make, started, turn };
}
