import { afterEach, describe, expect, it } from "vitest";
import type { BackendStatus } from "@/lib/model";
import { until } from "@/testkit/until";
import { isApiError } from "../../errors";
import { AgentProcess, type AgentProcessOptions } from "./agent-process";
import { ndjsonFraming, ndjsonLines } from "./framing";
import { JsonRpcPeer } from "./json-rpc";

/** A tiny NDJSON JSON-RPC agent: answers `initialize` (unless told to fail) and `echo`. */
const agent = (opts: { failInit?: boolean; closeStdout?: boolean } = {}) => `
  const rl = require("node:readline").createInterface({ input: process.stdin });
  rl.on("line", (l) => {
    const m = JSON.parse(l);
    if (m.method === "initialize") {
      ${opts.failInit ? `process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: "no thanks" } }) + "\\n");` : `process.stdout.write("banner, not JSON\\n" + JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { pid: process.pid } }) + "\\n");`}
      ${opts.closeStdout ? `process.stdout.end(); setInterval(() => {}, 1000);` : ""}
    } else if (m.method === "echo") process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: m.params }) + "\\n");
  });
  setInterval(() => {}, 1000);`;

const procs: AgentProcess<JsonRpcPeer>[] = [];
afterEach(async () => {
  await Promise.all(procs.splice(0).map((p) => p.stop()));
});

function run(script: string, extra: Partial<AgentProcessOptions<JsonRpcPeer>> = {}) {
  const statuses: { status: BackendStatus; error?: string }[] = [];
  const readies: { gen: number; notice?: string }[] = [];
  const exits: string[] = [];
  const ap: AgentProcess<JsonRpcPeer> = new AgentProcess<JsonRpcPeer>({
    name: "test agent",
    label: "Test agent",
    command: [process.execPath, "-e", script],
    framing: ndjsonLines,
    restart: { initialMs: 30, maxMs: 60 },
    handshakeName: "the test handshake",
    connect: (p) => {
      const peer = new JsonRpcPeer({
        readable: p.stdout,
        writable: p.stdin,
        framing: ndjsonFraming(),
        onSkip: (r, pre) => ap.skipped(r, pre),
      });
      void peer.closed.then(() => ap.connectionClosed(p.generation));
      return peer;
    },
    handshake: async (peer) => {
      await peer.request("initialize", {}, { timeoutMs: 10_000 });
    },
    close: (peer) => peer.close("process exited"),
    onStatus: (status, error) => statuses.push({ status, ...(error ? { error } : {}) }),
    onReady: (live, notice) => readies.push({ gen: live.gen, ...(notice ? { notice } : {}) }),
    onExit: (_e, turnError) => exits.push(turnError),
    ...extra,
  });
  procs.push(ap);
  ap.start();
  return { ap, statuses, readies, exits };
}

describe("AgentProcess", () => {
  it("connects, hands shake, and after a crash reports it, restarts and says so", async () => {
    const { ap, statuses, readies, exits } = run(agent());
    const live = await ap.whenReady(20_000);
    expect(live.gen).toBe(1);
    expect(await live.conn.request("echo", { x: 1 })).toEqual({ x: 1 });
    expect(statuses.map((s) => s.status)).toEqual(["connecting", "ready"]);
    // The banner line never reached the peer: the supervisor's framing skipped and noted it.
    expect(ap.logs().some((l) => l.includes("[stdout skipped: not JSON] banner"))).toBe(true);
    const pending = live.conn.request("never-answered");
    ap.kill();
    await expect(pending).rejects.toMatchObject({ name: "JsonRpcClosedError" });
    await until(() => exits.length === 1);
    expect(exits[0]).toBe("The agent process killed by SIGKILL. Switchboard is restarting it.");
    const down = statuses.find((s) => s.status === "down");
    expect(down?.error).toMatch(/^The agent process killed by SIGKILL; restarting in \d+ ms/);
    await until(() => readies.length === 2);
    expect(readies[1]!.gen).toBe(2);
    expect(readies[1]!.notice).toMatch(
      /^The agent was restarted \(pid \d+, restart #1\)\. Send a prompt to continue\.$/,
    );
    expect((await ap.whenReady()).gen).toBe(2);
    expect(ap.processInfo()).toMatchObject({ state: "running", restarts: 1, lastExit: "killed by SIGKILL" });
  });

  it("marks the backend down when the handshake fails, and keeps trying", async () => {
    const { ap, statuses } = run(agent({ failInit: true }));
    await until(() => statuses.filter((s) => s.status === "down").length >= 2);
    expect(statuses.find((s) => s.status === "down")!.error).toBe(
      "The agent did not complete the test handshake: no thanks",
    );
    expect(ap.current).toBeUndefined();
  });

  it("kills an agent that closed its stdout without exiting", async () => {
    const { readies } = run(agent({ closeStdout: true }));
    await until(() => readies.length >= 2, "a restart", 20_000);
  });

  it("answers 503 when the agent does not come up in time", async () => {
    const { ap } = run("", { command: ["definitely-not-a-command-xyz"] });
    const err = await ap.whenReady(100).catch((e: unknown) => e);
    expect(isApiError(err) && err.status).toBe(503);
    expect((err as Error).message).toContain(
      "Test agent is not running: The agent process failed to start: command not found",
    );
  });

  it("restart() on a stopped agent is a conflict", async () => {
    const { ap } = run(agent());
    await ap.stop();
    expect(() => ap.restart()).toThrow(/stopped/);
    await expect(ap.whenReady()).rejects.toThrow(/stopped/);
  });
});
