import { afterEach, describe, expect, it } from "vitest";
import { ndjsonLines } from "../backends/shared/framing";
import { ProcessSupervisor, type ProcessExit, type SupervisedProcess } from "./supervisor";

const node = process.execPath;
const sups: ProcessSupervisor[] = [];
afterEach(async () => {
  await Promise.all(sups.splice(0).map((s) => s.stop()));
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(f: () => T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const dec = new TextDecoder();
  let s = "";
  const r = stream.getReader();
  for (let x = await r.read(); !x.done; x = await r.read()) s += dec.decode(x.value);
  return s;
}

function supervise(script: string, extra: Partial<ConstructorParameters<typeof ProcessSupervisor>[0]> = {}) {
  const spawned: SupervisedProcess[] = [];
  const exits: ProcessExit[] = [];
  const sup = new ProcessSupervisor({
    name: "test",
    command: [node, "-e", script],
    restart: { initialMs: 50, maxMs: 200 },
    stopGraceMs: 500,
    onSpawn: (p) => spawned.push(p),
    onExit: (e) => exits.push(e),
    ...extra,
  });
  sups.push(sup);
  sup.start();
  return { sup, spawned, exits };
}

describe("ProcessSupervisor", () => {
  it("frames stdout (here as NDJSON) and skips malformed lines, noting them in the log", async () => {
    const script = `
      process.stdout.write('{"a":1}\\nhello banner\\n{"b":');
      setTimeout(() => { process.stdout.write('2}\\n'); process.exit(0); }, 50);`;
    const { sup, spawned } = supervise(script, { restart: false, framing: ndjsonLines });
    const p = await until(() => spawned[0]);
    expect(await readAll(p.stdout)).toBe('{"a":1}\n{"b":2}\n');
    await until(() => sup.state === "stopped");
    await until(() => sup.logs().some((l) => l.includes("exited with code 0")));
    expect(sup.logs().some((l) => l.includes("[stdout skipped: not JSON] hello banner"))).toBe(true);
  });

  it("keeps stderr in a bounded ring", async () => {
    const script = `for (let i = 0; i < 50; i++) console.error("err line " + i); setTimeout(() => process.exit(0), 50);`;
    const { sup } = supervise(script, { stderrLines: 10, restart: false });
    await until(() => sup.logs().some((l) => l.includes("err line 49")));
    expect(sup.logs().length).toBeLessThanOrEqual(10);
    expect(sup.logs().some((l) => l.includes("err line 0"))).toBe(false);
  });

  it("restarts a dead process with backoff and reports the exit", async () => {
    const { sup, spawned, exits } = supervise(`setInterval(() => {}, 1000)`);
    const first = await until(() => spawned[0]);
    process.kill(first.pid!, "SIGKILL");
    const exit = await until(() => exits[0]);
    expect(exit.signal).toBe("SIGKILL");
    expect(exit.description).toBe("killed by SIGKILL");
    expect(exit.restartInMs).toBe(50);
    const second = await until(() => spawned[1]);
    expect(second.generation).toBe(2);
    expect(second.pid).not.toBe(first.pid);
    expect(sup.restarts).toBe(1);
    // backoff grows while the process keeps dying, and resets once it is healthy
    sup.kill();
    expect((await until(() => exits[1])).restartInMs).toBe(100);
    await until(() => spawned[2]);
    sup.markHealthy();
    sup.kill();
    expect((await until(() => exits[2])).restartInMs).toBe(50);
  });

  it("stops with SIGTERM, escalates to SIGKILL, and takes the whole process group with it", async () => {
    // The child ignores SIGTERM and starts a grandchild (like npm's copilot loader does).
    const script = `
      process.on("SIGTERM", () => {});
      const { spawn } = require("node:child_process");
      const g = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" });
      console.log(JSON.stringify({ grandchild: g.pid }));
      setInterval(() => {}, 1000);`;
    const { sup, spawned, exits } = supervise(script);
    const p = await until(() => spawned[0]);
    const reader = p.stdout.getReader();
    const { value } = await reader.read();
    const grandchild = (JSON.parse(new TextDecoder().decode(value)) as { grandchild: number }).grandchild;
    expect(alive(grandchild)).toBe(true);
    await sup.stop();
    await until(() => exits[0]);
    expect(exits[0]!.signal).toBe("SIGKILL");
    expect(exits[0]!.restartInMs).toBeUndefined();
    await until(() => !alive(p.pid!) && !alive(grandchild));
    expect(sup.state).toBe("stopped");
  });

  it("reports a command that does not exist and keeps retrying", async () => {
    const exits: ProcessExit[] = [];
    const sup = new ProcessSupervisor({
      name: "missing",
      command: ["definitely-not-a-command-xyz"],
      restart: { initialMs: 20, maxMs: 40 },
      onExit: (e) => exits.push(e),
    });
    sups.push(sup);
    sup.start();
    await until(() => exits.length >= 2);
    expect(exits[0]!.error).toContain("command not found: definitely-not-a-command-xyz");
    expect(sup.logs().some((l) => l.includes("command not found"))).toBe(true);
  });
});
