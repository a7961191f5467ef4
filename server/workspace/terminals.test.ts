import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { until } from "@/testkit/until";
import { isApiError } from "../errors";
import { sessionMembers, TERMINAL_LIMITS, type TerminalChunk, TerminalManager } from "./terminals";

/** Real pseudo-terminals running a real shell. */
let dir: string;
let terminals: TerminalManager;

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-term-")));
});
afterEach(async () => {
  await terminals?.stop();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function collect(m: TerminalManager, id: string, after = 0) {
  const chunks: TerminalChunk[] = [];
  let exit: number | undefined;
  const stop = m.get("b", "s", id).follow(after, (e) => {
    if ("chunk" in e) chunks.push(e.chunk);
    else exit = e.exit;
  });
  return {
    chunks,
    text: () => chunks.map((c) => c.data).join(""),
    exit: () => exit,
    stop,
  };
}

describe("terminals", () => {
  it("runs a shell in the directory: pwd prints it, input echoes, a resize takes effect", async () => {
    terminals = new TerminalManager();
    const t = terminals.open("b", "s", dir, { cols: 80, rows: 24 });
    const out = collect(terminals, t.id);
    terminals.write("b", "s", t.id, "echo typed-$((40+2)); pwd; stty size\r");
    await until(() => out.text().includes("24 80"), "stty size 24 80");
    expect(out.text()).toContain("typed-42");
    expect(out.text()).toContain(dir);
    terminals.get("b", "s", t.id).resize(100, 30);
    terminals.write("b", "s", t.id, "stty size\r");
    await until(() => out.text().includes("30 100"), "stty size after resize");
    expect(terminals.list("b", "s")).toMatchObject([{ id: t.id, cols: 100, rows: 30, cwd: dir }]);
  });

  it("a stream resumes after the last chunk it saw, with nothing repeated", async () => {
    terminals = new TerminalManager();
    const t = terminals.open("b", "s", dir, { cols: 80, rows: 24 });
    const first = collect(terminals, t.id);
    terminals.write("b", "s", t.id, "echo one-$((1))\r");
    await until(() => first.text().includes("one-1"), "first output");
    first.stop();
    const seen = first.chunks.at(-1)!.seq;
    terminals.write("b", "s", t.id, "echo two-$((2))\r");
    const again = collect(terminals, t.id, seen);
    await until(() => again.text().includes("two-2"), "resumed output");
    expect(again.chunks[0]!.seq).toBe(seen + 1);
    expect(again.text()).not.toContain("one-1");
  });

  it("closing leaves no process behind, jobs the shell started included", async () => {
    terminals = new TerminalManager();
    const t = terminals.open("b", "s", dir, { cols: 80, rows: 24 });
    const out = collect(terminals, t.id);
    terminals.write("b", "s", t.id, "sleep 600 & echo started-$((7*6))\r");
    await until(() => out.text().includes("started-42"), "background job");
    const sid = terminals.get("b", "s", t.id).pid;
    await until(() => sessionMembers(sid).length >= 2, "the shell and its sleep");
    await terminals.close("b", "s", t.id);
    expect(sessionMembers(sid)).toEqual([]);
    expect(() => terminals.get("b", "s", t.id)).toThrow(/No such terminal/);
  });

  it("limits: terminals per session and in all; input size; another session's id is unknown", async () => {
    terminals = new TerminalManager({ ...TERMINAL_LIMITS, perSession: 2, total: 3 });
    const a = terminals.open("b", "s", dir, { cols: 80, rows: 24 });
    terminals.open("b", "s", dir, { cols: 80, rows: 24 });
    const third = (() => {
      try {
        terminals.open("b", "s", dir, { cols: 80, rows: 24 });
      } catch (err) {
        return err;
      }
    })();
    expect(isApiError(third) && third.code === "conflict" && /at most 2 terminals/.test(third.message)).toBe(true);
    terminals.open("b", "other", dir, { cols: 80, rows: 24 });
    expect(() => terminals.open("b", "third", dir, { cols: 80, rows: 24 })).toThrow(/3 terminals open/);
    expect(() => terminals.get("b", "other", a.id)).toThrow(/No such terminal/);
    expect(() => terminals.write("b", "s", a.id, "x".repeat(TERMINAL_LIMITS.inputChars + 1))).toThrow(/limited/);
  });

  it("a terminal idle for an hour is closed; an exited shell says so", async () => {
    terminals = new TerminalManager();
    const t = terminals.open("b", "s", dir, { cols: 80, rows: 24 });
    const sid = terminals.get("b", "s", t.id).pid;
    await terminals.closeIdle(Date.now() + TERMINAL_LIMITS.idleMs + 1000);
    expect(terminals.list("b", "s")).toEqual([]);
    expect(sessionMembers(sid)).toEqual([]);

    const u = terminals.open("b", "s", dir, { cols: 80, rows: 24 });
    const out = collect(terminals, u.id);
    terminals.write("b", "s", u.id, "exit 3\r");
    await until(() => out.exit() !== undefined, "the shell's exit");
    expect(out.exit()).toBe(3);
    expect(() => terminals.write("b", "s", u.id, "ls\r")).toThrow(/exited/);
  });
});
