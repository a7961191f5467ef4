/**
 * Helpers for the protocol folders' tests (never imported by production code): an adapter harness
 * over the scripted model and a temporary workspace, a sink that records what an adapter publishes,
 * the lines of a fixture file or of a child's stdout, the expected fields of a finished tool.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Backend, TimelineEvent, ToolBlock } from "@/lib/model";
import { apply, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { startScriptedModel, type ScriptedModel } from "./scripted-model";
import { Hub } from "../server/hub/hub";
import type { BackendAdapter, EventSink, LoadedSession } from "../server/backends/types";

/** An adapter and the hub it publishes to. */
export interface OnHub<A extends BackendAdapter> {
  adapter: A;
  hub: Hub;
}

/** What `registerAdapterHarness` sets up; its fields are set from `beforeAll` on. */
export class AdapterHarness {
  /** The scripted model the agents' provider points at: reset after each test, closed after all. */
  model!: ScriptedModel;
  /** A fresh temporary folder (its real path), removed after all tests. */
  root!: string;
  /** `root/ws`, the adapters' working directory and workspace. */
  workspace!: string;
  private running: OnHub<BackendAdapter>[] = [];

  /** An adapter made by `create` on a hub of its own that resolves it; both are stopped after the test. */
  onHub<A extends BackendAdapter>(create: (hub: Hub) => A): OnHub<A> {
    let adapter: A | undefined;
    const hub = new Hub((id) => (adapter && id === adapter.id ? adapter : undefined));
    adapter = create(hub);
    const r = { adapter, hub };
    this.running.push(r);
    return r;
  }

  /** Stops the hub and its adapter now (a console stopped within a test), not again after the test. */
  async stop(r: OnHub<BackendAdapter>): Promise<void> {
    r.hub.stop();
    await r.adapter.stop();
    this.running = this.running.filter((x) => x !== r);
  }

  /** Stops what `onHub` made (hub first, then adapter), as after each test. */
  async stopAll(): Promise<void> {
    for (const r of this.running.splice(0)) {
      r.hub.stop();
      await r.adapter.stop();
    }
  }
}

/**
 * Registers the hooks of an adapter test file: before all, the scripted model and a temporary
 * `root` (named `tmpPrefix…`) with `root/ws`; after each test, the adapters and hubs of `onHub`
 * stopped and the model reset; after all, the model closed and `root` removed.
 */
export function registerAdapterHarness(tmpPrefix: string): AdapterHarness {
  const h = new AdapterHarness();
  beforeAll(async () => {
    h.model = await startScriptedModel();
    h.root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix)));
    h.workspace = path.join(h.root, "ws");
    fs.mkdirSync(h.workspace);
  });
  afterEach(async () => {
    await h.stopAll();
    h.model.reset();
  });
  afterAll(async () => {
    await h.model.close();
    fs.rmSync(h.root, { recursive: true, force: true });
  });
  return h;
}

/** A sink without a hub: keeps every event and backend change, and each session's state as the reducer makes it. */
export class RecordingSink implements EventSink {
  states = new Map<string, SessionState>();
  events: { sessionId: string; event: TimelineEvent }[] = [];
  backends: Backend[] = [];
  publish(_b: string, sessionId: string, event: TimelineEvent) {
    this.events.push({ sessionId, event });
    this.states.set(sessionId, apply(this.states.get(sessionId) ?? emptyState, event));
  }
  backendChanged(b: Backend) {
    this.backends.push(b);
  }
  openSessions() {
    return [...this.states.keys()];
  }
  reconcile(_b: string, _s: string, _fresh: LoadedSession) {}
  sessionState(_b: string, id: string): SessionState | undefined {
    return this.states.get(id);
  }
  state(id: string): SessionState {
    return this.states.get(id) ?? emptyState;
  }
}

/** The non-blank lines of a fixture file, in order. */
export function fixtureLines(dir: string, file: string): string[] {
  return fs
    .readFileSync(path.join(dir, file), "utf8")
    .split("\n")
    .filter((l) => l.trim());
}

/** Calls `onLine` with each complete line (without its newline) a stream writes, as UTF-8 text. */
export function onLines(stream: Readable, onLine: (line: string) => void): void {
  let buf = "";
  stream.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      onLine(line);
    }
  });
}

/** The fields of a completed tool block whose agent already called it by its canonical name (for `toMatchObject`). */
export function completedTool(tool: ToolBlock["tool"], fields: Partial<ToolBlock> = {}): Partial<ToolBlock> {
  return { tool, rawTool: tool, status: "completed", ...fields };
}
