import "server-only";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { type IPty, spawn } from "@lydell/node-pty";
import { ApiError } from "../errors";
import { log } from "../log";
import { agentEnvironment } from "../processes/agent-env";

/**
 * Terminals in a session's directory (docs/workspace.md, "The terminal"): a pseudo-terminal running
 * the console user's shell (`@lydell/node-pty`, node-pty's prebuilt build), its output numbered and
 * kept in a bounded buffer so a stream resumes from `Last-Event-ID`. The shell has the console user's
 * rights and the environment an agent gets (no console token, no `SWITCHBOARD_*`).
 */

export interface TerminalLimits {
  perSession: number;
  total: number;
  idleMs: number;
  bufferChars: number;
  inputChars: number;
  chunkChars: number;
}

export const TERMINAL_LIMITS: TerminalLimits = {
  perSession: 4,
  total: 16,
  /** A terminal with no input and no output for this long is closed. */
  idleMs: 60 * 60_000,
  /** Output kept for a stream that resumes (bytes of text, oldest dropped first). */
  bufferChars: 512 * 1024,
  /** One input call. */
  inputChars: 64 * 1024,
  /** Output chunks are cut to this size, so one frame stays small. */
  chunkChars: 16 * 1024,
};

export interface TerminalChunk {
  seq: number;
  data: string;
}

export interface TerminalInfo {
  id: string;
  backendId: string;
  sessionId: string;
  cwd: string;
  createdAt: number;
  cols: number;
  rows: number;
  /** Set once the shell has exited. */
  exitCode?: number;
  /** A terminal that runs one command (a login): its command line, as shown. */
  command?: string;
}

/**
 * Whose terminal it is: a session's shell (`session`, the session routes), or a backend's login
 * command (`login`, Settings → *Run in terminal*, its own routes under the backend). The routes of
 * one kind never reach a terminal of the other, whatever id they are given.
 */
export type TerminalKind = "session" | "login";

/** A command to run in a terminal instead of the shell. */
export interface TerminalCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The command line shown. */
  display: string;
  /** Another user's process (SWITCHBOARD_AGENT_USER). */
  uid?: number;
  gid?: number;
  /** Called once with the command's exit code, unless the console ended it (closed, idle, stopping). */
  onExit?(code: number): void;
}

type Listener = (event: { chunk: TerminalChunk } | { exit: number }) => void;

class Terminal {
  readonly info: TerminalInfo;
  private chunks: TerminalChunk[] = [];
  private chars = 0;
  private seq = 0;
  private listeners = new Set<Listener>();
  lastActivity = Date.now();

  constructor(
    info: TerminalInfo,
    private pty: IPty,
    private limits: TerminalLimits,
    readonly kind: TerminalKind = "session",
  ) {
    this.info = info;
    pty.onData((data) => {
      this.lastActivity = Date.now();
      for (let i = 0; i < data.length; i += this.limits.chunkChars)
        this.push(data.slice(i, i + this.limits.chunkChars));
    });
    pty.onExit(({ exitCode }) => {
      this.info.exitCode = exitCode;
      for (const l of this.listeners) l({ exit: exitCode });
      this.listeners.clear();
    });
  }

  get pid(): number {
    return this.pty.pid;
  }

  private push(data: string) {
    const chunk = { seq: ++this.seq, data };
    this.chunks.push(chunk);
    this.chars += data.length;
    while (this.chars > this.limits.bufferChars && this.chunks.length > 1)
      this.chars -= this.chunks.shift()!.data.length;
    for (const l of this.listeners) l({ chunk });
  }

  /** What was written after `seq` that the buffer still holds, then each new chunk, then the exit. */
  follow(after: number, listener: Listener): () => void {
    for (const c of this.chunks) if (c.seq > after) listener({ chunk: c });
    if (this.info.exitCode !== undefined) {
      listener({ exit: this.info.exitCode });
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  write(data: string) {
    if (this.info.exitCode !== undefined) throw ApiError.conflict("The terminal's shell has exited");
    this.lastActivity = Date.now();
    this.pty.write(data);
  }

  resize(cols: number, rows: number) {
    if (this.info.exitCode !== undefined) throw ApiError.conflict("The terminal's shell has exited");
    this.pty.resize(cols, rows);
    this.info.cols = cols;
    this.info.rows = rows;
  }

  /** Set when the console ends it (closed, idle, stopping): its exit is not the command's own. */
  killed = false;

  /** Ends the shell and every process of its session (jobs it started included). */
  async kill(): Promise<void> {
    this.killed = true;
    const sid = this.pty.pid;
    if (this.info.exitCode === undefined) {
      try {
        this.pty.kill("SIGHUP");
      } catch {
        /* already gone */
      }
    }
    await killSession(sid);
  }
}

/** SIGKILLs what is left of a terminal's session (the shell is its leader: its pid is the session id). */
export async function killSession(sid: number): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const left = sessionMembers(sid);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        process.kill(pid, attempt === 0 ? "SIGHUP" : "SIGKILL");
      } catch {
        /* gone meanwhile */
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The processes whose session id is `sid` (Linux `/proc`; elsewhere the shell's own pid only). */
export function sessionMembers(sid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    try {
      process.kill(sid, 0);
      return [sid];
    } catch {
      return [];
    }
  }
  const out: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, "utf8");
      // pid (comm) state ppid pgrp session …: comm may hold spaces and parentheses; read after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[3]) === sid && fields[0] !== "Z") out.push(Number(e));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** Every terminal of the console, with the limits; one per console, built in server/app.ts. */
export class TerminalManager {
  private terminals = new Map<string, Terminal>();
  private sweep: ReturnType<typeof setInterval>;

  constructor(private limits: TerminalLimits = TERMINAL_LIMITS) {
    this.sweep = setInterval(() => void this.closeIdle(), 60_000);
    this.sweep.unref();
  }

  /** A shell in a session's directory `cwd`. */
  open(backendId: string, sessionId: string, cwd: string, size: { cols: number; rows: number }): TerminalInfo {
    const shell = process.env.SHELL && fs.existsSync(process.env.SHELL) ? process.env.SHELL : "/bin/bash";
    return this.spawnIn(
      "session",
      backendId,
      sessionId,
      { file: shell, args: [], env: agentEnvironment({ name: "terminal" }), cwd },
      size,
    );
  }

  /**
   * One command in a terminal of kind `login` under `scope` (Settings → *Run in terminal*: a backend's
   * terminal login, scope "login"): what that scope had running is closed first, so a backend has one.
   */
  async openCommand(
    backendId: string,
    scope: string,
    command: TerminalCommand,
    size: { cols: number; rows: number },
  ): Promise<TerminalInfo> {
    for (const t of this.list(backendId, scope, "login")) await this.close(backendId, scope, t.id, "login");
    return this.spawnIn("login", backendId, scope, command, size);
  }

  private spawnIn(
    kind: TerminalKind,
    backendId: string,
    sessionId: string,
    run: Omit<TerminalCommand, "display"> & { display?: string },
    size: { cols: number; rows: number },
  ): TerminalInfo {
    const live = [...this.terminals.values()].filter((t) => t.info.exitCode === undefined);
    if (
      live.filter((t) => t.kind === kind && t.info.backendId === backendId && t.info.sessionId === sessionId).length >=
      this.limits.perSession
    )
      throw ApiError.conflict(`A session may have at most ${this.limits.perSession} terminals open: close one first`);
    if (live.length >= this.limits.total)
      throw ApiError.conflict(`The console has ${this.limits.total} terminals open, its limit: close one first`);
    const env = { ...run.env, TERM: "xterm-256color", COLORTERM: "truecolor" };
    const pty = spawn(run.file, run.args, {
      name: "xterm-256color",
      cols: size.cols,
      rows: size.rows,
      cwd: run.cwd,
      env,
      ...(run.uid !== undefined && run.gid !== undefined ? { uid: run.uid, gid: run.gid } : {}),
    });
    const info: TerminalInfo = {
      id: randomUUID(),
      backendId,
      sessionId,
      cwd: run.cwd,
      createdAt: Date.now(),
      ...size,
      ...(run.display ? { command: run.display } : {}),
    };
    const t = new Terminal(info, pty, this.limits, kind);
    if (run.onExit) {
      const onExit = run.onExit;
      t.follow(Number.MAX_SAFE_INTEGER, (e) => {
        if ("exit" in e && !t.killed) onExit(e.exit);
      });
    }
    this.terminals.set(info.id, t);
    log.info("terminal opened", { backendId, sessionId, kind, terminal: info.id, pid: pty.pid });
    return { ...info };
  }

  /** The terminal, when it belongs to that session (404 otherwise: another session's id reveals nothing). */
  get(backendId: string, sessionId: string, id: string, kind: TerminalKind = "session"): Terminal {
    const t = this.terminals.get(id);
    if (!t || t.kind !== kind || t.info.backendId !== backendId || t.info.sessionId !== sessionId)
      throw ApiError.notFound("No such terminal");
    return t;
  }

  list(backendId: string, sessionId: string, kind: TerminalKind = "session"): TerminalInfo[] {
    return [...this.terminals.values()]
      .filter((t) => t.kind === kind && t.info.backendId === backendId && t.info.sessionId === sessionId)
      .map((t) => ({ ...t.info }));
  }

  write(backendId: string, sessionId: string, id: string, data: string, kind: TerminalKind = "session") {
    if (data.length > this.limits.inputChars)
      throw ApiError.badRequest(`Input is limited to ${this.limits.inputChars} characters a call`);
    this.get(backendId, sessionId, id, kind).write(data);
  }

  async close(backendId: string, sessionId: string, id: string, kind: TerminalKind = "session"): Promise<void> {
    const t = this.get(backendId, sessionId, id, kind);
    this.terminals.delete(id);
    await t.kill();
    log.info("terminal closed", { backendId, sessionId, kind, terminal: id });
  }

  /** Closes the terminals idle longer than the limit (and forgets those whose shell exited long ago). */
  async closeIdle(now = Date.now()): Promise<void> {
    for (const [id, t] of this.terminals) {
      if (now - t.lastActivity < this.limits.idleMs) continue;
      this.terminals.delete(id);
      await t.kill();
      log.info("terminal closed after an hour idle", { terminal: id });
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.sweep);
    const all = [...this.terminals.values()];
    this.terminals.clear();
    await Promise.all(all.map((t) => t.kill()));
  }
}
