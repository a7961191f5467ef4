import { afterEach, describe, expect, it } from "vitest";
import type { Backend, Capabilities, TimelineEvent } from "@/lib/model";
import { until } from "@/testkit/until";
import { isApiError } from "../../errors";
import type { EventSink } from "../types";
import { ndjsonFraming, ndjsonLines } from "./framing";
import { JsonRpcPeer } from "./json-rpc";
import { maskEnv, ProbedShell, restartNoticeEvent, SupervisedShell, type StdioShellOptions } from "./stdio-shell";

const CAPS: Capabilities = {
  fork: false,
  revert: false,
  diff: false,
  compact: false,
  models: false,
  share: false,
  history: true,
  abort: true,
  rename: true,
  delete: true,
  search: true,
  directories: true,
  interrupts: { permission: false, question: false, input: false },
};

function fakeSink() {
  const changes: Backend[] = [];
  const published: { sessionId: string; event: TimelineEvent }[] = [];
  const sink: EventSink = {
    publish: (_b, sessionId, event) => published.push({ sessionId, event }),
    backendChanged: (b) => changes.push(b),
    openSessions: () => [],
    reconcile: () => undefined,
  };
  return { sink, changes, published };
}

const base = (sink: EventSink, extra: Partial<StdioShellOptions> = {}): StdioShellOptions => ({
  id: "b1",
  kind: "zot",
  label: "Test backend",
  command: ["agent", "--flag"],
  env: { SECRET_KEY: "hunter2" },
  cwd: "/work",
  source: "store",
  sink,
  describe: () => ({ capabilities: CAPS, version: "1.2.3" }),
  ...extra,
});

const shells: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(shells.splice(0).map((s) => s.stop()));
});

describe("StdioShell info and status", () => {
  it("assembles info with env values masked, the process part, and the adapter's own part", () => {
    const { sink } = fakeSink();
    const shell = new ProbedShell(
      base(sink, {
        describe: () => ({ capabilities: CAPS, version: "1.2.3", location: "somewhere", extra: { protocol: "v9" } }),
      }),
      { probe: async () => undefined, running: () => 0 },
    );
    expect(shell.info()).toEqual({
      id: "b1",
      kind: "zot",
      label: "Test backend",
      status: "connecting",
      capabilities: CAPS,
      location: "somewhere",
      version: "1.2.3",
      source: "store",
      protocol: "v9",
      config: { command: ["agent", "--flag"], env: { SECRET_KEY: "***" }, cwd: "/work" },
      process: { state: "idle", restarts: 0 },
    });
    expect(JSON.stringify(shell.info())).not.toContain("hunter2");
    expect(maskEnv(undefined)).toBeUndefined();
  });

  it("announces a status change once, through the adapter's gate", () => {
    const { sink, changes } = fakeSink();
    let loggedIn = false;
    const shell = new ProbedShell(
      base(sink, {
        gate: (status, error) =>
          status === "ready" && !loggedIn ? { status: "auth-required", error: "log in first" } : { status, error },
      }),
      { probe: async () => undefined, running: () => 0 },
    );
    shell.setStatus("ready");
    shell.setStatus("ready");
    expect(changes.map((c) => [c.status, c.error])).toEqual([["auth-required", "log in first"]]);
    loggedIn = true;
    shell.setStatus("ready");
    expect(changes.map((c) => c.status)).toEqual(["auth-required", "ready"]);
    expect(shell.status).toBe("ready");
    expect(shell.error).toBeUndefined();
  });
});

describe("ProbedShell", () => {
  it("runs the start-up check, is down with its reason, and checks again with backoff until it passes", async () => {
    const { sink, changes } = fakeSink();
    let calls = 0;
    const shell = new ProbedShell(base(sink), {
      probe: async () => {
        calls++;
        if (calls < 3) throw new Error(`no key (${calls})`);
      },
      running: () => 0,
      retry: { initialMs: 20, maxMs: 40 },
    });
    shells.push(shell);
    await shell.start();
    await shell.ready(5_000);
    expect(calls).toBe(3);
    expect(changes.map((c) => [c.status, c.error])).toEqual([
      ["down", "no key (1)"],
      ["down", "no key (2)"],
      ["ready", undefined],
    ]);
  });

  it("shares a check in flight, and restart() checks again", async () => {
    const { sink } = fakeSink();
    let calls = 0;
    const shell = new ProbedShell(base(sink), {
      probe: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
      },
      running: () => 0,
    });
    shells.push(shell);
    await Promise.all([shell.probe(), shell.probe()]);
    expect(calls).toBe(1);
    await shell.restart();
    expect(calls).toBe(2);
    expect(shell.status).toBe("ready");
  });

  it("stops checking once stopped, and ready() answers 503 with the reason", async () => {
    const { sink } = fakeSink();
    let calls = 0;
    const shell = new ProbedShell(base(sink), {
      probe: async () => {
        calls++;
        throw new Error("broken");
      },
      running: () => 0,
      retry: { initialMs: 20 },
    });
    await shell.start();
    await until(() => shell.status === "down");
    await shell.stop();
    const seen = calls;
    await new Promise((r) => setTimeout(r, 80));
    expect(calls).toBe(seen);
    expect(shell.processInfo().state).toBe("stopped");
    const err = await shell.ready(50).catch((e: unknown) => e);
    expect(isApiError(err) && err.status).toBe(503);
    expect((err as Error).message).toBe("Test backend is not ready: broken");
  });

  it("down() from a failed session process schedules a check", async () => {
    const { sink } = fakeSink();
    let calls = 0;
    const shell = new ProbedShell(base(sink), {
      probe: async () => void calls++,
      running: () => 0,
      retry: { initialMs: 20 },
    });
    shells.push(shell);
    shell.down("zot exited before it answered hello");
    expect(shell.error).toBe("zot exited before it answered hello");
    await until(() => shell.status === "ready");
    expect(calls).toBe(1);
  });

  it("counts exits, keeps the ended processes' logs in a bounded ring and the live ones after them", () => {
    const { sink, changes } = fakeSink();
    let running = 2;
    const shell = new ProbedShell(base(sink), {
      probe: async () => undefined,
      running: () => running,
      liveLogs: () => ["[s2] live line"],
      logLines: 3,
    });
    shell.keepLogs("start-up check", ["a", "b"]);
    shell.keepLogs("s1", ["c", "d"]);
    expect(shell.logs()).toEqual(["[s1] c", "[s1] d", "[s2] live line"]);
    expect(shell.processInfo()).toEqual({ state: "running", restarts: 0 });
    running = 1;
    shell.exited("The zot process ended (killed by SIGKILL).");
    expect(changes.at(-1)?.process).toEqual({
      state: "running",
      restarts: 1,
      lastExit: "The zot process ended (killed by SIGKILL).",
    });
  });
});

/** A tiny NDJSON JSON-RPC agent that answers `initialize`. */
const agent = `
  const rl = require("node:readline").createInterface({ input: process.stdin });
  process.stderr.write("agent says hi\\n");
  rl.on("line", (l) => {
    const m = JSON.parse(l);
    if (m.method === "initialize") process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {} }) + "\\n");
  });
  setInterval(() => {}, 1000);`;

function supervised(extra: { restartNotice?: (s: string, m: string, t: string) => void } = {}) {
  const fake = fakeSink();
  const readies: number[] = [];
  const shell: SupervisedShell<JsonRpcPeer> = new SupervisedShell<JsonRpcPeer>(
    base(fake.sink, { kind: "acp", command: [process.execPath, "-e", agent] }),
    {
      framing: ndjsonLines,
      restart: { initialMs: 30, maxMs: 60 },
      connect: (p) => {
        const peer = new JsonRpcPeer({ readable: p.stdout, writable: p.stdin, framing: ndjsonFraming() });
        void peer.closed.then(() => shell.proc.connectionClosed(p.generation));
        return peer;
      },
      handshake: async (peer) => void (await peer.request("initialize", {}, { timeoutMs: 10_000 })),
      close: (peer) => peer.close("process exited"),
      onReady: (live) => readies.push(live.gen),
      ...extra,
    },
  );
  shells.push(shell);
  return { shell, readies, ...fake };
}

describe("SupervisedShell", () => {
  it("follows the agent process: status, info's process part, logs, and a restart notice for crashed turns", async () => {
    const { shell, readies, changes, published } = supervised();
    await shell.start();
    await shell.ready(20_000);
    // "connecting" from the start: no change to announce.
    expect(changes.map((c) => c.status)).toEqual(["ready"]);
    expect(shell.info().process).toMatchObject({ state: "running", restarts: 0 });
    expect(shell.pid).toBeGreaterThan(0);
    await until(() => shell.logs().some((l) => l.includes("agent says hi")));
    shell.noteCrash("s1", "m1");
    shell.noteCrash("s2", "m2");
    shell.forgetCrash("s2");
    shell.kill();
    await until(() => readies.length === 2, "the restart", 20_000);
    expect(changes.map((c) => c.status)).toEqual(["ready", "down", "ready"]);
    expect(shell.info().process).toMatchObject({ state: "running", restarts: 1, lastExit: "killed by SIGKILL" });
    expect(published).toHaveLength(1);
    expect(published[0]!.sessionId).toBe("s1");
    const text = (published[0]!.event as Extract<TimelineEvent, { type: "block.updated" }>).block;
    expect(published[0]!.event).toEqual(restartNoticeEvent("m1", (text as { text: string }).text));
    expect((text as { text: string }).text).toMatch(/^The agent was restarted \(pid \d+, restart #1\)/);
  });

  it("shows restart notices the adapter's way when it says how, and restart() restarts", async () => {
    const notices: string[] = [];
    const { shell, readies, published } = supervised({ restartNotice: (s, m) => notices.push(`${s}/${m}`) });
    await shell.start();
    await shell.ready(20_000);
    shell.noteCrash("s1", "m1");
    await shell.restart();
    await until(() => readies.length === 2, "the restart", 20_000);
    expect(notices).toEqual(["s1/m1"]);
    expect(published).toHaveLength(0);
    await shell.stop();
    expect(shell.processInfo().state).toBe("stopped");
  });
});
