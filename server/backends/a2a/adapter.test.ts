/**
 * The A2A adapter against the test A2A server (testkit/a2a-server.ts) where the conformance
 * suite does not reach: an agent that does not stream (`message/send` + `tasks/get`), and an
 * opencode-a2a interrupt answered after its binding expired.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "@/testkit/until";
import { opencodeBridge } from "../../../testkit/a2a-opencode-bridge";
import { plainAgent } from "../../../testkit/a2a-plain-agent";
import { startA2aServer, type A2aServer } from "../../../testkit/a2a-server";
import { createOpencodeHome, createWorkspace, type OpencodeHome } from "../../../testkit/opencode-env";
import { startOpencodeServer, type OpencodeServer } from "../../../testkit/opencode-server";
import { startScriptedModel, type ScriptedModel } from "../../../testkit/scripted-model";
import { isApiError } from "../../errors";
import { Hub } from "../../hub/hub";
import { SqliteStore } from "../../store/sqlite-store";
import type { EventSink } from "../types";
import { A2aAdapter } from "./adapter";

process.env.SWITCHBOARD_LOG ??= "silent";

function hubSink(): { sink: EventSink; attach(h: Hub): void } {
  let hub: Hub | undefined;
  const sink: EventSink = {
    publish: (b, s, e) => hub?.publish(b, s, e),
    backendChanged: (b) => hub?.backendChanged(b),
    openSessions: (b) => hub?.openSessions(b) ?? [],
    reconcile: (b, s, f) => hub?.reconcile(b, s, f),
    sessionState: (b, s) => hub?.sessionState(b, s),
    openSession: async (b, s) => {
      await hub?.openSession(b, s);
    },
  };
  return { sink, attach: (h) => (hub = h) };
}

const textOf = (messages: { role: string; blocks: { kind: string; text?: string }[] }[]) =>
  messages
    .filter((m) => m.role === "assistant")
    .flatMap((m) => m.blocks.filter((b) => b.kind === "text").map((b) => b.text ?? ""))
    .join("\n");

describe("A2A adapter: an agent that does not stream", { timeout: 60_000 }, () => {
  let model: ScriptedModel;
  let server: A2aServer;
  let data: string;
  let store: SqliteStore;
  let adapter: A2aAdapter;
  let hub: Hub;

  beforeAll(async () => {
    model = await startScriptedModel();
    server = await startA2aServer({ agent: plainAgent({ modelUrl: model.url, streaming: false }), token: "t-send" });
    data = fs.mkdtempSync(path.join(os.tmpdir(), "sb-a2a-send-"));
    store = new SqliteStore(path.join(data, "db.sqlite"));
    const { sink, attach } = hubSink();
    adapter = new A2aAdapter({ id: "send", label: "Send-only agent", url: server.url, token: "t-send", store }, sink);
    hub = new Hub((id) => (id === "send" ? adapter : undefined));
    attach(hub);
    await adapter.start();
    await until(() => adapter.info().status === "ready", "the agent to be ready", 20_000);
  });
  afterAll(async () => {
    hub.stop();
    await adapter.stop();
    await server.stop();
    await model.close();
    store.close();
    fs.rmSync(data, { recursive: true, force: true });
  });

  it("runs a turn with message/send and tasks/get, and an input-required answer on the same task", async () => {
    expect(adapter.info().agent?.streaming).toBe(false);
    model.enqueue({ text: "Sent, not streamed." });
    const s = await adapter.createSession({ title: "send only" });
    const ch = await hub.open("send", s.id);
    await adapter.prompt(s.id, { parts: [{ type: "text", text: "hello" }] });
    await until(
      () => textOf(ch.state.messages).includes("Sent, not streamed.") && ch.state.session?.status === "idle",
      "the reply",
      30_000,
    );

    model.enqueue(
      { toolCalls: [{ name: "ask_user", arguments: { question: "Which file?" } }] },
      { text: "Reading notes.md." },
    );
    await adapter.prompt(s.id, { parts: [{ type: "text", text: "read a file" }] });
    const it = await until(() => ch.state.interrupts.find((i) => i.kind === "input"), "the input request", 30_000);
    expect(it.input?.prompt).toContain("Which file?");
    expect(ch.state.session?.status).toBe("waiting");
    await adapter.answerInterrupt(s.id, it.id, { text: "notes.md" });
    await until(
      () => textOf(ch.state.messages).includes("Reading notes.md.") && ch.state.session?.status === "idle",
      "the answered turn",
      30_000,
    );
    expect(ch.state.interrupts).toEqual([]);
  });

  it("an auth-required answer reaches the agent but only a mask reaches the timeline, the store and an export", async () => {
    const secret = "hunter2-very-secret-credential";
    model.enqueue(
      { toolCalls: [{ name: "request_auth", arguments: { prompt: "Paste your API key" } }] },
      { text: "Signed in." },
    );
    const s = await adapter.createSession({ title: "auth" });
    const ch = await hub.open("send", s.id);
    await adapter.prompt(s.id, { parts: [{ type: "text", text: "sign me in" }] });
    const it = await until(() => ch.state.interrupts.find((i) => i.kind === "input"), "the auth request", 30_000);
    expect(it.input?.sensitive).toBe(true);
    await adapter.answerInterrupt(s.id, it.id, { text: secret });
    await until(
      () => textOf(ch.state.messages).includes("Signed in.") && ch.state.session?.status === "idle",
      "the answered turn",
      30_000,
    );
    // the agent got it (as the tool's result the model saw) …
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain(secret);
    // … the console kept only the mask
    expect(JSON.stringify(ch.state.messages)).not.toContain(secret);
    expect(JSON.stringify(ch.state.messages)).toContain("sensitive answer");
    expect(JSON.stringify(store.listTranscripts("send"))).not.toContain(secret);
    expect(JSON.stringify((await adapter.loadSession(s.id)).messages)).not.toContain(secret);
    for (const f of fs.readdirSync(data))
      expect(fs.readFileSync(path.join(data, f)).includes(Buffer.from(secret)), f).toBe(false);
  });
});

describe("A2A adapter: an opencode-a2a interrupt answered after it expired", { timeout: 90_000 }, () => {
  let model: ScriptedModel;
  let home: OpencodeHome;
  let workspace: string;
  let oc: OpencodeServer;
  let server: A2aServer;
  let bridge: ReturnType<typeof opencodeBridge>;
  let data: string;
  let store: SqliteStore;
  let adapter: A2aAdapter;
  let hub: Hub;

  beforeAll(async () => {
    model = await startScriptedModel();
    workspace = await createWorkspace();
    home = await createOpencodeHome({
      modelBaseUrl: model.url,
      config: { permission: { bash: { "*": "allow", "echo *marker": "ask" } } },
    });
    oc = await startOpencodeServer({ env: home.env, cwd: workspace });
    bridge = opencodeBridge({ opencodeUrl: oc.url, directory: workspace, interruptTtlSeconds: 1 });
    server = await startA2aServer({ agent: bridge, token: "t-oc" });
    data = fs.mkdtempSync(path.join(os.tmpdir(), "sb-a2a-expiry-"));
    store = new SqliteStore(path.join(data, "db.sqlite"));
    const { sink, attach } = hubSink();
    adapter = new A2aAdapter({ id: "oc", label: "OpenCode A2A", url: server.url, token: "t-oc", store }, sink);
    hub = new Hub((id) => (id === "oc" ? adapter : undefined));
    attach(hub);
    await adapter.start();
    await until(() => adapter.info().status === "ready", "the agent to be ready", 30_000);
  }, 120_000);
  afterAll(async () => {
    hub.stop();
    await adapter.stop();
    await server.stop();
    bridge.close();
    await oc.stop();
    await home.cleanup();
    await model.close();
    store.close();
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(data, { recursive: true, force: true });
  });

  it("answers 410, resolves the interrupt as expired and says so in the timeline", async () => {
    model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command: "echo expiry-marker", description: "Print it" } }] },
      { text: "Done." },
    );
    const s = await adapter.createSession({ title: "expiry" });
    const ch = await hub.open("oc", s.id);
    await adapter.prompt(s.id, { parts: [{ type: "text", text: "run the marker" }] });
    const it = await until(
      () => ch.state.interrupts.find((i) => i.kind === "permission"),
      "a permission request",
      30_000,
    );
    // the binding lives 1 s; the bridge keeps a tombstone after it
    await until(
      () => bridge.bindings().every((b) => b.expires_at * 1000 < Date.now()),
      "the binding to expire",
      10_000,
    );
    await expect(adapter.answerInterrupt(s.id, it.id, { decision: "allow_once" })).rejects.toSatisfy(
      (e: unknown) => isApiError(e) && e.status === 410,
    );
    await until(() => ch.state.interrupts.length === 0, "the interrupt to be resolved");
    const notices = ch.state.messages.flatMap((m) => m.blocks).filter((b) => b.kind === "notice");
    expect(notices.map((b) => (b.kind === "notice" ? b.text : "")).join("\n")).toContain(
      "expired before it was answered",
    );
    await adapter.abort(s.id);
    await until(() => ch.state.session?.status === "idle", "the turn to stop", 20_000);
  });
});
