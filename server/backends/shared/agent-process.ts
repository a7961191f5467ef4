import "server-only";
import type { Backend, BackendStatus } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import {
  ProcessSupervisor,
  type ProcessExit,
  type SupervisedProcess,
  type SupervisorOptions,
} from "../../processes/supervisor";

/** One live incarnation of the agent process with the protocol connection on its stdio. */
export interface Incarnation<C> {
  /** The supervisor's generation: 1 for the first spawn, +1 per restart. */
  gen: number;
  conn: C;
}

export interface AgentProcessOptions<C> {
  /** For logs, e.g. `copilot (copilot)`. */
  name: string;
  /** The backend's label, for user-facing messages. */
  label: string;
  command: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** stdout framing before `connect` sees it (e.g. `ndjsonLines`); default raw bytes. */
  framing?: SupervisorOptions["framing"];
  /** Restart with backoff when the process dies (default on); `false` for one-shot processes (zot: one per session). */
  restart?: false | { initialMs?: number; maxMs?: number };
  /** How long `whenReady()` waits for a (re)starting agent before answering 503 (default 45 s). */
  readyTimeoutMs?: number;
  /** What the handshake is called in the "did not complete …" status (default "its handshake"). */
  handshakeName?: string;
  /** Wraps a fresh process's stdio in the protocol connection. */
  connect(p: SupervisedProcess): C;
  /** The protocol handshake on a fresh connection; a throw marks the backend down and restarts the process. */
  handshake(conn: C, gen: number): Promise<void>;
  /** Releases a connection whose process is gone. */
  close(conn: C): void;
  /** Backend status changes ("connecting" → "ready" → "down" …), with a user-facing reason. */
  onStatus(status: BackendStatus, error?: string): void;
  /**
   * The connection is up and current. From the second incarnation on, `restartNotice` is the
   * sentence to append to turns that the crash failed ("The agent was restarted …").
   */
  onReady?(live: Incarnation<C>, restartNotice?: string): void;
  /**
   * The process of `exit.generation` ended (not called during `stop()`). `turnError` is the
   * sentence to end its running turns with; the backend status is already "down".
   */
  onExit?(exit: ProcessExit, turnError: string): void;
}

const READY_TIMEOUT_MS = 45_000;

/**
 * A stdio agent process with its protocol connection: the `ProcessSupervisor` (restart with
 * backoff, process group, stderr ring) plus what every stdio adapter needs around it — one
 * connection per incarnation, the handshake, "ready" waiters (503 after a timeout), the backend
 * status with a readable reason ("The agent process exited with code 1; restarting in 2 s (last
 * output: …)"), restart notices for the turns a crash ended, and a watchdog that restarts an agent
 * which closed its stdout without exiting.
 */
export class AgentProcess<C> {
  private supervisor: ProcessSupervisor;
  private live: Incarnation<C> | undefined;
  private waiters: { resolve: (c: Incarnation<C>) => void }[] = [];
  private exitWaiters = new Map<number, (() => void)[]>();
  private exitedGens = new Set<number>();
  private _stopping = false;
  private lastError: string | undefined;

  constructor(private opts: AgentProcessOptions<C>) {
    this.supervisor = new ProcessSupervisor({
      name: opts.name,
      command: opts.command,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.framing ? { framing: opts.framing } : {}),
      ...(opts.restart !== undefined ? { restart: opts.restart } : {}),
      onSpawn: (p) => this.onSpawn(p),
      onExit: (e) => this.onExit(e),
    });
  }

  /** The live connection, if the agent is up and past its handshake. */
  get current(): Incarnation<C> | undefined {
    return this.live;
  }
  get stopping(): boolean {
    return this._stopping;
  }
  get pid(): number | undefined {
    return this.supervisor.pid;
  }

  /** The agent's stderr tail (and the supervisor's own notes). */
  logs(): string[] {
    return this.supervisor.logs();
  }

  /** For `Backend.process`. */
  processInfo(): NonNullable<Backend["process"]> {
    const last = this.supervisor.lastExitInfo;
    const pid = this.supervisor.pid;
    return {
      state: this.supervisor.state,
      restarts: this.supervisor.restarts,
      ...(pid !== undefined ? { pid } : {}),
      ...(last ? { lastExit: last.description } : {}),
    };
  }

  /** Adds a line of the console's own to the process's logs (`[switchboard] <time> <line>`). */
  note(line: string): void {
    this.supervisor.annotate(line);
  }

  /** Notes a frame the protocol layer could not use in the stderr ring (and the log). */
  skipped(reason: string, preview: string): void {
    this.supervisor.skipped(reason, preview);
  }

  start(): void {
    this._stopping = false;
    this.status("connecting");
    this.supervisor.start();
  }

  async stop(): Promise<void> {
    this._stopping = true;
    const c = this.live;
    this.live = undefined;
    await this.supervisor.stop();
    if (c) this.opts.close(c.conn);
  }

  /** Restarts the process (after a login, or when it is wedged). */
  restart(): void {
    if (this._stopping) throw ApiError.conflict(`${this.opts.label} is stopped`);
    this.status("connecting", "Restarting…");
    if (this.supervisor.pid === undefined) this.supervisor.start();
    else this.supervisor.kill("SIGTERM");
  }

  /** Kills the live process; the supervisor restarts it as after a crash. */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.supervisor.kill(signal);
  }

  /** The live connection, waiting for a (re)start; 503 (`ApiError.down`) when the agent stays down. */
  whenReady(timeoutMs = this.opts.readyTimeoutMs ?? READY_TIMEOUT_MS): Promise<Incarnation<C>> {
    if (this.live) return Promise.resolve(this.live);
    if (this._stopping) return Promise.reject(ApiError.down(`${this.opts.label} is stopped`));
    return new Promise<Incarnation<C>>((resolve, reject) => {
      const waiter = {
        resolve: (c: Incarnation<C>) => {
          clearTimeout(t);
          resolve(c);
        },
      };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(ApiError.down(`${this.opts.label} is not running${this.lastError ? `: ${this.lastError}` : ""}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  hasExited(gen: number): boolean {
    return this.exitedGens.has(gen);
  }

  /** Resolves when the process of `gen` has exited, or after `ms`. */
  waitExit(gen: number, ms: number): Promise<void> {
    if (this.exitedGens.has(gen)) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      const list = this.exitWaiters.get(gen) ?? [];
      list.push(() => {
        clearTimeout(t);
        resolve();
      });
      this.exitWaiters.set(gen, list);
    });
  }

  /**
   * Call when the protocol connection of `gen` ended. An agent that closed its stdout is exiting,
   * or wedged: if it has not exited within 2 s, it is killed (and restarted).
   */
  connectionClosed(gen: number): void {
    void this.waitExit(gen, 2000).then(() => {
      if (!this._stopping && !this.exitedGens.has(gen) && this.live?.gen === gen) {
        log.warn("agent closed its connection without exiting; restarting it", { name: this.opts.name });
        this.supervisor.kill();
      }
    });
  }

  private status(status: BackendStatus, error?: string) {
    this.lastError = error;
    this.opts.onStatus(status, error);
  }

  private onSpawn(p: SupervisedProcess) {
    const conn = this.opts.connect(p);
    void this.handshake({ gen: p.generation, conn });
  }

  private async handshake(c: Incarnation<C>) {
    try {
      await this.opts.handshake(c.conn, c.gen);
      if (this._stopping) return;
      this.live = c;
      this.supervisor.markHealthy();
      this.status("ready");
      for (const w of this.waiters.splice(0)) w.resolve(c);
      const notice =
        c.gen > 1
          ? `The agent was restarted (pid ${this.supervisor.pid ?? "?"}, restart #${c.gen - 1}). Send a prompt to continue.`
          : undefined;
      this.opts.onReady?.(c, notice);
    } catch (err) {
      if (this._stopping) return;
      const msg = describeError(err);
      log.warn("agent handshake failed; restarting the agent", { name: this.opts.name, error: msg });
      this.status("down", `The agent did not complete ${this.opts.handshakeName ?? "its handshake"}: ${msg}`);
      this.supervisor.kill();
    }
  }

  private onExit(exit: ProcessExit) {
    this.exitedGens.add(exit.generation);
    for (const w of this.exitWaiters.get(exit.generation) ?? []) w();
    this.exitWaiters.delete(exit.generation);
    if (this._stopping) return;
    if (this.live?.gen === exit.generation) {
      this.opts.close(this.live.conn);
      this.live = undefined;
    }
    this.status("down", describeExit(exit, this.supervisor.logs()));
    this.opts.onExit?.(exit, `The agent process ${exit.description}. Switchboard is restarting it.`);
  }
}

/** "The agent process exited with code 1; restarting in 2 s (last output: …)". */
export function describeExit(exit: ProcessExit, logs: string[]): string {
  const ms = exit.restartInMs;
  const restart = ms !== undefined ? `; restarting in ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}` : "";
  const tail = logs.filter((l) => !l.startsWith("[switchboard]")).slice(-1)[0];
  return `The agent process ${exit.description}${restart}${tail ? ` (last output: ${tail.slice(0, 200)})` : ""}`;
}

/** `p`, or a 502 (`ApiError.upstream`) "The agent did not answer <what> within N s" after `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(
      () => reject(ApiError.upstream(`The agent did not answer ${what} within ${Math.round(ms / 1000)} s`)),
      ms,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}
