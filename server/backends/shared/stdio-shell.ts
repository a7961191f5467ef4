import "server-only";
import type { Backend, BackendKind, BackendStatus, Capabilities, TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import type { EventSink } from "../types";
import { AgentProcess, type AgentProcessOptions, type Incarnation } from "./agent-process";

/**
 * The stdio agent shell (docs/architecture.md, "The stdio shell"): the process wiring every stdio
 * adapter needs and none speaks a protocol for — the backend status with its reason, `info()`,
 * `logs()`, `start`/`stop`/`restart`/`ready`, restart notices. The adapter owns one and hands it
 * callbacks (`describe`, `gate`, the connection's `connect`/`handshake`). `SupervisedShell` runs one
 * long-lived process under the supervisor (acp, opal, copilot); `ProbedShell` probes the command for
 * processes the adapter starts itself (zot: one per session).
 */

/** What only the adapter knows of its `info()`: read at each `info()` (and each status change). */
export interface ShellDescription {
  capabilities: Capabilities;
  version?: string | undefined;
  /** Where it runs, for display (default: the command line). Never carries secrets. */
  location?: string;
  /** More of `Backend` (`auth`, `authMethods` …). */
  extra?: Partial<Omit<Backend, "id" | "kind" | "label" | "status" | "error" | "process">>;
}

export interface StdioShellOptions {
  id: string;
  kind: BackendKind;
  label: string;
  /** The command line as configured: shown in `config` (and as the location). */
  command: string[];
  /** The configured environment: only its names are shown, each value as "***". */
  env?: Record<string, string> | undefined;
  /** The configured directory, shown as given (unset: none shown). */
  cwd?: string | undefined;
  source?: "env" | "store" | undefined;
  sink: EventSink;
  describe(): ShellDescription;
  /**
   * A status before it is kept, turned into another where the adapter knows better, e.g. "ready"
   * while not logged in → "auth-required" with how to log in.
   */
  gate?(status: BackendStatus, error: string | undefined): { status: BackendStatus; error?: string | undefined };
}

/** What the shell shows of an adapter's configuration: its id, kind, label, command, env, directory and source. */
export function shellIdentity(
  opts: Pick<StdioShellOptions, "id" | "label" | "command" | "env" | "cwd" | "source">,
  kind: BackendKind,
): Pick<StdioShellOptions, "id" | "kind" | "label" | "command" | "env" | "cwd" | "source"> {
  return {
    id: opts.id,
    kind,
    label: opts.label,
    command: opts.command,
    env: opts.env,
    cwd: opts.cwd,
    source: opts.source,
  };
}

/** The configured env with every value masked (undefined without one). */
export function maskEnv(env: Record<string, string> | undefined): Record<string, string> | undefined {
  return env ? Object.fromEntries(Object.keys(env).map((k) => [k, "***"])) : undefined;
}

/** The notice block that tells a crashed turn's message the agent is back. */
export function restartNoticeEvent(messageId: string, text: string): TimelineEvent {
  return {
    type: "block.updated",
    messageId,
    block: { id: `${messageId}:restart`, kind: "notice", level: "info", text },
  };
}

/** Status, info and its announcement: what both flavours share. */
export abstract class StdioShell {
  private _status: BackendStatus = "connecting";
  private _error: string | undefined;

  constructor(protected readonly shellOpts: StdioShellOptions) {}

  get status(): BackendStatus {
    return this._status;
  }
  get error(): string | undefined {
    return this._error;
  }

  /** Keeps the status (through `gate`) and, when it changed, tells the hub. */
  setStatus(status: BackendStatus, error?: string): void {
    const gated = this.shellOpts.gate ? this.shellOpts.gate(status, error) : { status, error };
    if (this._status === gated.status && this._error === gated.error) return;
    this._status = gated.status;
    this._error = gated.error;
    this.changed();
  }

  /** Tells the hub the backend's info changed (a version, a process count …). */
  changed(): void {
    this.shellOpts.sink.backendChanged(this.info());
  }

  info(): Backend {
    const o = this.shellOpts;
    const d = o.describe();
    const env = maskEnv(o.env);
    return {
      id: o.id,
      kind: o.kind,
      label: o.label,
      status: this._status,
      ...(this._error ? { error: this._error } : {}),
      capabilities: d.capabilities,
      location: d.location ?? o.command.join(" "),
      ...(d.version ? { version: d.version } : {}),
      ...(o.source ? { source: o.source } : {}),
      config: { command: o.command, ...(env ? { env } : {}), ...(o.cwd ? { cwd: o.cwd } : {}) },
      ...d.extra,
      process: this.processInfo(),
    };
  }

  /** `Backend.process`. */
  abstract processInfo(): NonNullable<Backend["process"]>;
  /** stderr tails and the supervisor's notes, oldest first. */
  abstract logs(): string[];
  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  /** The settings page's Restart. */
  abstract restart(): Promise<void>;
  /** Until the backend is ready; 503 (`ApiError.down`) after `timeoutMs`. */
  abstract ready(timeoutMs?: number): Promise<void>;
}

/* ------------------------------------------------------------------ one supervised process */

/** The agent process as the adapter describes it: its connection; the shell fills in the rest. */
export interface SupervisedSpec<C>
  extends Omit<AgentProcessOptions<C>, "name" | "label" | "command" | "env" | "cwd" | "onStatus" | "onReady"> {
  /** For logs (default `<id> (<command[0]>)`). */
  name?: string;
  /** What is spawned (default the shell's `command`). */
  command?: string[];
  /** The process's environment (default the shell's `env`); read at each spawn, so it may be updated in place. */
  env?: Record<string, string>;
  /** Its working directory (resolved: the shell's `cwd` is the configured one, for display). */
  cwd?: string;
  /** The connection is up and current (after the restart notices, if any). */
  onReady?(live: Incarnation<C>, restartNotice?: string): void;
  /** Shows a restart notice on a crashed turn's message (default: `restartNoticeEvent` published). */
  restartNotice?(sessionId: string, messageId: string, text: string): void;
}

/** One long-lived agent process under the supervisor (acp, opal, copilot). */
export class SupervisedShell<C> extends StdioShell {
  /** The process and its connection: `current`, `whenReady()`, `waitExit()`, `connectionClosed()` … */
  readonly proc: AgentProcess<C>;
  /** Session id → the message a crash ended, until the agent is back. */
  private crashed = new Map<string, string>();

  constructor(opts: StdioShellOptions, spec: SupervisedSpec<C>) {
    super(opts);
    const { name, command, env, cwd, onReady, restartNotice, ...rest } = spec;
    const run = command ?? opts.command;
    const runEnv = env ?? opts.env;
    this.proc = new AgentProcess<C>({
      ...rest,
      name: name ?? `${opts.id} (${run[0] ?? "?"})`,
      label: opts.label,
      command: run,
      ...(cwd ? { cwd } : {}),
      ...(runEnv ? { env: runEnv } : {}),
      onStatus: (status, error) => this.setStatus(status, error),
      onReady: (live, notice) => {
        if (notice) this.announceRestart(notice, restartNotice);
        onReady?.(live, notice);
      },
    });
  }

  /** A crash ended this session's turn at `messageId`: it gets the restart notice when the agent is back. */
  noteCrash(sessionId: string, messageId: string): void {
    this.crashed.set(sessionId, messageId);
  }

  /** The session is gone: no notice for it. */
  forgetCrash(sessionId: string): void {
    this.crashed.delete(sessionId);
  }

  private announceRestart(text: string, show: SupervisedSpec<C>["restartNotice"]) {
    const pending = [...this.crashed];
    this.crashed.clear();
    for (const [sessionId, messageId] of pending) {
      if (show) show(sessionId, messageId, text);
      else this.shellOpts.sink.publish(this.shellOpts.id, sessionId, restartNoticeEvent(messageId, text));
    }
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }
  processInfo(): NonNullable<Backend["process"]> {
    return this.proc.processInfo();
  }
  logs(): string[] {
    return this.proc.logs();
  }
  async start(): Promise<void> {
    this.proc.start();
  }
  async stop(): Promise<void> {
    await this.proc.stop();
  }
  /** Restarts the process (after a login, or when it is wedged). */
  async restart(): Promise<void> {
    this.proc.restart();
  }
  async ready(timeoutMs?: number): Promise<void> {
    await this.proc.whenReady(timeoutMs);
  }
  /** Kills the live process as a crash would; the supervisor restarts it. */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.proc.kill(signal);
  }
}

/* ------------------------------------------------------------------ processes of the adapter's own */

export interface ProbedSpec {
  /**
   * The start-up check: resolves when the command works, throws why not (its message becomes the
   * status's reason). Runs at `start()`, at `restart()`, and again with backoff while down.
   */
  probe(): Promise<void>;
  /** How many of the adapter's processes run now (`process.state` "running" or "idle"). */
  running(): number;
  /** The running processes' logs, each line tagged (after the ring of the ended ones'). */
  liveLogs?(): string[];
  /** Backoff of the re-check while down (default 5 s, doubling to 5 min). */
  retry?: { initialMs?: number; maxMs?: number };
  /** Lines kept of ended processes (default 300). */
  logLines?: number;
}

/** Processes the adapter starts itself, a start-up check for the status (zot). */
export class ProbedShell extends StdioShell {
  private ring: string[] = [];
  private exits = 0;
  private lastExit: string | undefined;
  private stopped = false;
  private probing: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private delayMs: number;

  constructor(
    opts: StdioShellOptions,
    private spec: ProbedSpec,
  ) {
    super(opts);
    this.delayMs = spec.retry?.initialMs ?? 5_000;
  }

  /** Runs the start-up check (the one in flight, if any): "ready", or "down" with its reason and a re-check later. */
  probe(): Promise<void> {
    this.probing ??= (async () => {
      try {
        await this.spec.probe();
        this.delayMs = this.spec.retry?.initialMs ?? 5_000;
        this.setStatus("ready");
      } catch (err) {
        this.down(describeError(err));
      } finally {
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  /** Down with `reason` (a process did not start): checked again later, with backoff. */
  down(reason: string): void {
    this.setStatus("down", reason);
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped && this.status === "down") void this.probe();
    }, this.delayMs);
    this.timer.unref?.();
    this.delayMs = Math.min(this.delayMs * 2, this.spec.retry?.maxMs ?? 5 * 60_000);
  }

  /** Keeps a process's log lines (tagged `[tag]`) in the ring. */
  keepLogs(tag: string, lines: readonly string[]): void {
    const max = this.spec.logLines ?? 300;
    this.ring.push(...lines.map((l) => `[${tag}] ${l}`));
    if (this.ring.length > max) this.ring.splice(0, this.ring.length - max);
  }

  /** A process ended by itself: counted as a restart, its description the last exit. */
  exited(description: string): void {
    this.exits++;
    this.lastExit = description;
    this.changed();
  }

  processInfo(): NonNullable<Backend["process"]> {
    return {
      state: this.stopped ? "stopped" : this.spec.running() > 0 ? "running" : "idle",
      restarts: this.exits,
      ...(this.lastExit ? { lastExit: this.lastExit } : {}),
    };
  }

  logs(): string[] {
    return [...this.ring, ...(this.spec.liveLogs?.() ?? [])].slice(-(this.spec.logLines ?? 300));
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.setStatus("connecting");
    void this.probe();
  }

  /** Stops re-checking; the adapter stops its processes. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Checks the command again. */
  async restart(): Promise<void> {
    this.setStatus("connecting");
    await this.probe();
  }

  async ready(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.status !== "ready") {
      if (Date.now() > deadline)
        throw ApiError.down(`${this.shellOpts.label} is not ready${this.error ? `: ${this.error}` : ""}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/**
 * What an adapter with one supervised agent process offers the routes and the tests besides the
 * protocol (acp, copilot, opal): restart, wait until ready, kill as a crash would (the fault tests),
 * each its shell's.
 */
export abstract class SupervisedAdapter<C> {
  /** The adapter's shell. */
  protected abstract get supervised(): SupervisedShell<C>;

  async restart(): Promise<void> {
    await this.supervised.restart();
  }

  /** For tests: until the agent is up. */
  async ready(timeoutMs?: number): Promise<void> {
    await this.supervised.ready(timeoutMs);
  }

  /** For tests and the fault tests: the live process is killed; the supervisor restarts it. */
  killProcess(signal: NodeJS.Signals = "SIGKILL"): void {
    this.supervised.kill(signal);
  }
}
