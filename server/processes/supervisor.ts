import "server-only";
import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { log } from "../log";
import { agentEnvironment } from "./agent-env";
import { type AgentUser, agentUserOf, environmentFor } from "./agent-user";
import { resolveCommand } from "./resolve-command";
import { sandboxed } from "./sandbox";

export type ProcessState = "idle" | "starting" | "running" | "restarting" | "stopped";

/** One incarnation of the supervised command. */
export interface SupervisedProcess {
  /** 1 for the first spawn, +1 for every restart. */
  generation: number;
  pid: number | undefined;
  /** The child's stdin (write errors after its death are swallowed). */
  stdin: WritableStream<Uint8Array>;
  /** The child's stdout, through the `framing` transform when one is given. */
  stdout: ReadableStream<Uint8Array>;
}

export interface ProcessExit {
  generation: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Spawn failure (e.g. command not found). */
  error?: string;
  uptimeMs: number;
  /** Set when a restart is scheduled. */
  restartInMs?: number;
  /** A one-line human description ("exited with code 1", "killed by SIGKILL"). */
  description: string;
}

export interface SupervisorOptions {
  /** For logs. */
  name: string;
  /**
   * `[command, ...args]`; the command is looked up in PATH, then in the console's node_modules/.bin.
   * A function is called before every spawn (e.g. for a port chosen by `beforeSpawn`).
   */
  command: string[] | (() => string[]);
  /** Runs before every spawn (e.g. picking a free port); a throw counts as a failed start. */
  beforeSpawn?: () => Promise<void>;
  /**
   * The process's own variables, over the allow-listed part of the console's environment (never the
   * whole of it: ./agent-env.ts).
   */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * The console settings the sandbox and the agent's user are read from (`SWITCHBOARD_AGENT_SANDBOX`,
   * the workspace roots, the data folder: ./sandbox.ts; `SWITCHBOARD_AGENT_USER`: ./agent-user.ts).
   * Default `process.env`.
   */
  sandboxEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * Cuts stdout into frames before it is handed out (e.g. `ndjsonLines` from
   * server/backends/shared/framing.ts); skipped frames are noted in the stderr ring and logged.
   * Default: raw bytes.
   */
  framing?: (onSkip: (reason: string, preview: string) => void) => TransformStream<Uint8Array, Uint8Array>;
  /** stderr lines kept (default 300). */
  stderrLines?: number;
  /** Restart with exponential backoff when the process dies (default on; 500 ms → 30 s). */
  restart?: false | { initialMs?: number; maxMs?: number };
  /** SIGTERM → SIGKILL grace period on stop (default 3 s). */
  stopGraceMs?: number;
  onSpawn?: (p: SupervisedProcess) => void;
  onExit?: (e: ProcessExit) => void;
}

const MAX_LINE_CHARS = 2000;
const EXIT_GRACE_MS = 3000;
const HEALTHY_AFTER_MS = 30_000;

/* ------------------------------------------------------------------------- no orphans */

/** Process groups of every live child, killed when the console exits for any reason. */
const liveGroups = new Map<number, ChildProcess>();
let exitHooked = false;
function trackGroup(child: ChildProcess) {
  if (child.pid === undefined) return;
  liveGroups.set(child.pid, child);
  if (!exitHooked) {
    exitHooked = true;
    // The console is exiting (Next's own signal handler exits without waiting for our graceful
    // `stop()`): every remaining group gets SIGTERM now, and a small detached watchdog SIGKILLs
    // whatever is left after the grace period, since this process will not be around to do it.
    process.once("exit", () => {
      const pids = [...liveGroups.keys()];
      if (pids.length === 0) return;
      for (const pid of pids) killGroup(pid, "SIGTERM");
      try {
        const code = `setTimeout(() => { for (const p of ${JSON.stringify(pids)}) { try { process.kill(-p, "SIGKILL"); } catch {} } }, ${EXIT_GRACE_MS});`;
        spawn(process.execPath, ["-e", code], { detached: true, stdio: "ignore" }).unref();
      } catch {
        for (const pid of pids) killGroup(pid, "SIGKILL");
      }
    });
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // Children run in their own process group (detached): a negative pid signals the whole group,
    // so launcher scripts (e.g. npm's copilot loader) cannot leave their real binary behind.
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/* ------------------------------------------------------------------------- supervisor */

/**
 * Spawns and supervises one child process (a stdio agent, the embedded `opencode serve`): configured
 * command, args, env and working directory; optional framing of stdout (malformed frames logged and
 * skipped); stderr in a bounded
 * ring buffer; restart with backoff when it dies; SIGTERM then SIGKILL on stop; the child's whole
 * process group is killed with it, and on console exit, so nothing is left orphaned.
 */
export class ProcessSupervisor {
  private child: ChildProcess | undefined;
  private generation = 0;
  private attempt = 0;
  private startedAt = 0;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private stopping = false;
  private preparing = false;
  private ring: string[] = [];
  private partialErr = "";
  private _state: ProcessState = "idle";
  private _restarts = 0;
  private lastExit: ProcessExit | undefined;

  constructor(private opts: SupervisorOptions) {}

  get state(): ProcessState {
    return this._state;
  }
  get pid(): number | undefined {
    return this.child?.pid;
  }
  get restarts(): number {
    return this._restarts;
  }
  get lastExitInfo(): ProcessExit | undefined {
    return this.lastExit;
  }

  /** The most recent stderr lines (plus the supervisor's own lifecycle notes), oldest first. */
  logs(): string[] {
    return this.partialErr ? [...this.ring, this.partialErr] : [...this.ring];
  }

  start(): void {
    this.stopping = false;
    if (this.child || this.restartTimer || this.preparing) return;
    this.spawnOnce();
  }

  /** Resets the backoff: call when the agent proved healthy (e.g. its handshake succeeded). */
  markHealthy(): void {
    this.attempt = 0;
  }

  /** Kills the current process; the supervisor restarts it as after a crash. */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.child?.pid !== undefined) killGroup(this.child.pid, signal);
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves once the process has exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    this._state = "stopped";
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const c = this.child;
    if (!c || c.pid === undefined || c.exitCode !== null || c.signalCode !== null) return;
    const pid = c.pid;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        killGroup(pid, "SIGKILL");
        resolve();
      }, this.opts.stopGraceMs ?? 3000);
      t.unref?.();
      c.once("exit", () => {
        clearTimeout(t);
        // The leader is gone; anything it left in its group goes too.
        killGroup(pid, "SIGKILL");
        resolve();
      });
      killGroup(pid, "SIGTERM");
    });
  }

  private note(line: string) {
    this.push(`[switchboard] ${new Date().toISOString()} ${line}`);
  }

  private push(line: string) {
    this.ring.push(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line);
    const cap = this.opts.stderrLines ?? 300;
    if (this.ring.length > cap) this.ring.splice(0, this.ring.length - cap);
  }

  /** A line of the console's own about this process (e.g. the protocol version agreed), among its logs. */
  annotate(line: string): void {
    this.note(line);
  }

  /** A frame the stdout framing (or a protocol peer reading stdout) could not use. */
  skipped(reason: string, preview: string): void {
    this.push(`[stdout skipped: ${reason}] ${preview}`);
    log.warn("skipped a malformed line from an agent", {
      name: this.opts.name,
      reason,
      preview: preview.slice(0, 120),
    });
  }

  private onStderr(chunk: string) {
    const text = this.partialErr + chunk;
    const lines = text.split("\n");
    this.partialErr = lines.pop() ?? "";
    if (this.partialErr.length > MAX_LINE_CHARS) {
      this.push(this.partialErr);
      this.partialErr = "";
    }
    for (const l of lines) if (l.trim()) this.push(l.replace(/\r$/, ""));
  }

  private spawnOnce(): void {
    const generation = ++this.generation;
    this._state = generation === 1 ? "starting" : "restarting";
    const before = this.opts.beforeSpawn;
    if (!before) {
      this.spawnNow(generation);
      return;
    }
    this.preparing = true;
    before().then(
      () => {
        this.preparing = false;
        if (!this.stopping) this.spawnNow(generation);
      },
      (err: unknown) => {
        this.preparing = false;
        const error = err instanceof Error ? err.message : String(err);
        this.note(error);
        this.handleExit(generation, null, null, error);
      },
    );
  }

  private spawnNow(generation: number): void {
    const [cmd, ...args] = typeof this.opts.command === "function" ? this.opts.command() : this.opts.command;
    const settings = this.opts.sandboxEnv ?? process.env;
    const own = this.opts.env ?? {};
    let env: Record<string, string> = agentEnvironment({ own, name: this.opts.name });
    // SWITCHBOARD_AGENT_USER: another user's process, with that user's HOME (./agent-user.ts).
    let user: AgentUser | undefined;
    try {
      user = agentUserOf(settings);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.note(error);
      this.handleExit(generation, null, null, error);
      return;
    }
    if (user) env = environmentFor(user, env, new Set(Object.keys(own)));
    const resolved = cmd
      ? resolveCommand(cmd, {
          ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}),
          ...(env.PATH ? { pathEnv: env.PATH } : {}),
        })
      : undefined;
    if (!resolved) {
      const error = `command not found: ${cmd ?? "(empty)"} (looked in PATH and node_modules/.bin)`;
      this.note(error);
      this.handleExit(generation, null, null, error);
      return;
    }
    let child: ChildProcess;
    let run: { command: string; args: string[] };
    try {
      // SWITCHBOARD_AGENT_SANDBOX: the same command, under bubblewrap (./sandbox.ts).
      run = sandboxed(resolved, args, { env: settings, agentEnv: env, cwd: this.opts.cwd });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.note(error);
      this.handleExit(generation, null, null, error);
      return;
    }
    try {
      child = spawn(run.command, run.args, {
        cwd: this.opts.cwd,
        env: env as NodeJS.ProcessEnv,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      });
    } catch (err) {
      this.handleExit(generation, null, null, err instanceof Error ? err.message : String(err));
      return;
    }
    this.child = child;
    this.startedAt = Date.now();
    let exited = false;
    const onGone = (code: number | null, signal: NodeJS.Signals | null, error?: string) => {
      if (exited) return;
      exited = true;
      if (child.pid !== undefined) {
        liveGroups.delete(child.pid);
        killGroup(child.pid, "SIGKILL");
      }
      if (this.child === child) this.child = undefined;
      this.handleExit(generation, code, signal, error);
    };
    child.once("error", (err) => onGone(null, null, err.message));
    child.once("exit", (code, signal) => onGone(code, signal));
    if (child.pid === undefined) return; // spawn failed; 'error' follows
    trackGroup(child);
    this._state = "running";
    const how = [run.command === resolved ? "" : "in the bwrap sandbox", user ? `as ${user.name}` : ""].filter(Boolean);
    this.note(`started pid ${child.pid}${how.length ? ` (${how.join(", ")})` : ""}: ${[cmd, ...args].join(" ")}`);
    log.info("agent process started", { name: this.opts.name, pid: child.pid, generation });

    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (d: string) => this.onStderr(d));
    child.stdin!.on("error", () => {}); // EPIPE after death: the exit handler reports it
    child.stdout!.on("error", () => {});

    const rawOut = Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>;
    const stdout = this.opts.framing
      ? rawOut.pipeThrough(this.opts.framing((reason, preview) => this.skipped(reason, preview)))
      : rawOut;
    const stdin = Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>;
    try {
      this.opts.onSpawn?.({ generation, pid: child.pid, stdin, stdout });
    } catch (err) {
      log.error("onSpawn handler failed", {
        name: this.opts.name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  private handleExit(generation: number, code: number | null, signal: NodeJS.Signals | null, error?: string) {
    const uptimeMs = this.startedAt ? Date.now() - this.startedAt : 0;
    if (uptimeMs > HEALTHY_AFTER_MS) this.attempt = 0;
    const description = error
      ? `failed to start: ${error}`
      : signal
        ? `killed by ${signal}`
        : `exited with code ${code}`;
    const exit: ProcessExit = { generation, code, signal, uptimeMs, description, ...(error ? { error } : {}) };
    if (this.partialErr) {
      this.push(this.partialErr);
      this.partialErr = "";
    }
    if (!this.stopping && this.opts.restart !== false) {
      const initial = this.opts.restart?.initialMs ?? 500;
      const max = this.opts.restart?.maxMs ?? 30_000;
      exit.restartInMs = Math.min(max, initial * 2 ** this.attempt++);
    }
    this.lastExit = exit;
    this.note(`${description}${exit.restartInMs !== undefined ? `; restarting in ${exit.restartInMs} ms` : ""}`);
    if (!this.stopping)
      log.warn("agent process ended", {
        name: this.opts.name,
        generation,
        code,
        signal,
        error,
        restartInMs: exit.restartInMs,
      });
    if (exit.restartInMs !== undefined) {
      this._state = "restarting";
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (this.stopping) return;
        this._restarts++;
        this.spawnOnce();
      }, exit.restartInMs);
      this.restartTimer.unref?.();
    } else if (!this.stopping) {
      this._state = "stopped";
    }
    try {
      this.opts.onExit?.(exit);
    } catch (err) {
      log.error("onExit handler failed", {
        name: this.opts.name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
