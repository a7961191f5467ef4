import "server-only";
import { randomBytes } from "node:crypto";
import { describeError } from "../../errors";
import type { ProcessExit } from "../../processes/supervisor";
import { AgentProcess, withTimeout } from "../shared/agent-process";
import { num, obj, str, type Obj } from "../shared/values";
import { ZotClosedError, ZotConnection } from "./connection";

/** The protocol major version this console speaks (`hello` → `protocol_version`). */
export const PROTOCOL_VERSION = 1;
export const TOKEN_VAR = "ZOTCORE_RPC_TOKEN";
const HELLO_TIMEOUT_MS = 20_000;

/** What `hello` told us. */
export interface HelloInfo {
  version?: string;
  provider?: string;
  model?: string;
}

/** zot could not be started (no credential, a wrong token, another protocol version …): the sentence says why. */
export class ZotStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ZotStartError";
  }
}

export interface ZotProcessOptions {
  /** For logs. */
  name: string;
  label: string;
  /** The whole command line (the configured command plus `--cwd`). */
  command: string[];
  /** The configured environment; a fresh `ZOTCORE_RPC_TOKEN` is added on top. */
  env?: Record<string, string>;
  cwd: string;
  onEvent(frame: Obj): void;
  /** The process ended by itself after its handshake (not through `stop()`), with a readable sentence. */
  onExit(description: string): void;
}

/** The last line the process wrote to stderr (its own, not the supervisor's notes). */
function lastOutput(logs: string[]): string | undefined {
  return logs
    .filter((l) => !l.startsWith("[switchboard]") && l.trim())
    .at(-1)
    ?.slice(0, 300);
}

/**
 * One `zot rpc` process (one per console session and incarnation: zot keeps one conversation per
 * process and nothing after it): the agent process block on the supervisor without restarts (a new
 * process is the adapter's decision, since it must be given the conversation), a fresh random
 * `ZOTCORE_RPC_TOKEN` in its environment, and the handshake: `hello` with that token, refusing a
 * `protocol_version` other than 1. `start()` resolves with what `hello` said, or rejects with a
 * `ZotStartError` that says what went wrong in words.
 */
export class ZotProcess {
  private proc: AgentProcess<ZotConnection>;
  private token = randomBytes(32).toString("hex");
  private started: Promise<HelloInfo>;
  private settle!: { resolve: (h: HelloInfo) => void; reject: (e: Error) => void };
  private ready = false;
  private failure: string | undefined;
  private hello: HelloInfo = {};

  constructor(private opts: ZotProcessOptions) {
    this.started = new Promise<HelloInfo>((resolve, reject) => (this.settle = { resolve, reject }));
    this.started.catch(() => undefined);
    this.proc = new AgentProcess<ZotConnection>({
      name: opts.name,
      label: opts.label,
      command: opts.command,
      cwd: opts.cwd,
      env: { ...opts.env, [TOKEN_VAR]: this.token },
      restart: false,
      readyTimeoutMs: HELLO_TIMEOUT_MS,
      handshakeName: "zot's hello",
      connect: (p) =>
        new ZotConnection(p, {
          onEvent: (f) => this.opts.onEvent(f),
          onSkip: (reason, preview) => this.proc.skipped(reason, preview),
          onClose: () => this.proc.connectionClosed(p.generation),
        }),
      handshake: (conn, gen) => this.handshake(conn, gen),
      close: (conn) => conn.close(),
      onStatus: () => undefined,
      onReady: () => {
        // Resolved here, not in the handshake: the connection is current from now on.
        this.ready = true;
        this.settle.resolve(this.hello);
      },
      onExit: (exit) => this.exited(exit),
    });
  }

  /** Spawns the process and shakes hands. */
  start(): Promise<HelloInfo> {
    this.proc.start();
    return this.started;
  }

  get connection(): ZotConnection | undefined {
    return this.proc.current?.conn;
  }
  get pid(): number | undefined {
    return this.proc.pid;
  }
  logs(): string[] {
    return this.proc.logs();
  }

  private async handshake(conn: ZotConnection, gen: number): Promise<void> {
    try {
      const r = await withTimeout(conn.request("hello", { token: this.token }), HELLO_TIMEOUT_MS, "hello");
      if (!r.success) {
        // zot exits after refusing hello: wait for it, so its last words are in the logs.
        await this.proc.waitExit(gen, 1000);
        throw new ZotStartError(
          r.error === "invalid token"
            ? `zot refused the console's ${TOKEN_VAR} ("invalid token") and exited. Switchboard gives each zot process a fresh token; a wrapper or fork that sets its own (or reads another variable) is in the way.`
            : `zot refused hello: ${r.error ?? "no reason given"}`,
        );
      }
      const data = obj(r.data);
      const version = num(data.protocol_version);
      if (version !== PROTOCOL_VERSION) {
        throw new ZotStartError(
          `zot speaks RPC protocol version ${version ?? "(none given)"}; Switchboard speaks version ${PROTOCOL_VERSION}. Use a zot release with protocol version ${PROTOCOL_VERSION}.`,
        );
      }
      const hello: HelloInfo = {};
      const v = str(data.version);
      const provider = str(data.provider);
      const model = str(data.model);
      if (v) hello.version = v;
      if (provider) hello.provider = provider;
      if (model) hello.model = model;
      this.hello = hello;
    } catch (err) {
      let message = err instanceof ZotStartError ? err.message : describeError(err);
      if (err instanceof ZotClosedError) {
        // It exited before answering (no credential, a bad flag …): its last words say why.
        await this.proc.waitExit(gen, 2000);
        const said = lastOutput(this.proc.logs());
        message = `zot exited before it answered hello${said ? `: ${said}` : ""}`;
      }
      this.failure = message;
      this.settle.reject(new ZotStartError(message));
      throw new ZotStartError(message);
    }
  }

  private exited(exit: ProcessExit) {
    const said = lastOutput(this.proc.logs());
    const description = `The zot process ended (${exit.description})${said ? `; its last output: ${said}` : ""}.`;
    if (!this.ready) {
      const message = exit.error
        ? `zot did not start: ${exit.description}`
        : `zot exited before it answered hello${said ? `: ${said}` : ` (${exit.description})`}`;
      // The exit can be seen before the refusal on stdout is read: the handshake's own reason wins.
      setTimeout(() => this.settle.reject(new ZotStartError(this.failure ?? message)), 300).unref?.();
      return;
    }
    this.opts.onExit(description);
  }

  /** SIGTERM (then SIGKILL) and wait for it to end; `onExit` is not called. */
  async stop(): Promise<void> {
    this.settle.reject(new ZotStartError("zot was stopped before it started"));
    await this.proc.stop();
  }

  /** Kills it as a crash would (`onExit` is called). */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.proc.kill(signal);
  }
}
