import "server-only";
import path from "node:path";
import type { BackendStatus, Capabilities } from "@/lib/model";
import { log } from "../../log";
import type { SupervisedProcess } from "../../processes/supervisor";
import type { Incarnation } from "../shared/agent-process";
import { contentLengthFraming } from "../shared/framing";
import { JsonRpcPeer } from "../shared/json-rpc";
import { SupervisedShell, shellIdentity } from "../shared/stdio-shell";
import type { EventSink } from "../types";
import { type CopilotAdapterOptions, headlessCommand } from "./config";
import { AuthStatus, mapRpcError, PingResult, parseResult, StatusResult } from "./rpc";

const SDK_PROTOCOL_VERSION = 3;
const REQUEST_TIMEOUT_MS = 60_000;

/** A live CLI: its process generation and the JSON-RPC peer on its stdio. */
export type Cli = Incarnation<JsonRpcPeer>;

/** What the CLI sends the console unasked, and what becomes of its process. */
export interface CliHandlers {
  /** `session.event` from the process of `gen`. */
  event(gen: number, params: unknown): void;
  /** `session.lifecycle` from the process of `gen`. */
  lifecycle(gen: number, params: unknown): void;
  /** `userInput.request` (the ask_user tool): the CLI waits for the user's answer. */
  userInput(gen: number, params: unknown, signal: AbortSignal): Promise<{ answer: string; wasFreeform: boolean }>;
  /** `exitPlanMode.request` (the exit_plan_mode tool in Plan mode): the CLI waits for the user's verdict on the plan. */
  exitPlanMode(
    gen: number,
    params: unknown,
    signal: AbortSignal,
  ): Promise<{ approved: boolean; selectedAction?: string; feedback?: string }>;
  /** A new process passed the handshake: it knows no session yet. */
  connected(): void;
  /** The CLI process of `gen` died: `turnError` ends its running turns. */
  exited(gen: number, turnError: string): void;
}

/**
 * The CLI process and the console's connection to it: `copilot --headless --stdio` on the stdio
 * shell (../shared/stdio-shell.ts: the supervised process, status, info, logs, restart notices),
 * spoken to over its stdio with JSON-RPC and `Content-Length` framing (../shared/json-rpc.ts,
 * ../shared/framing.ts); the handshake (protocol version, version, login) and the "auth-required"
 * status that follows from it.
 */
export class CopilotConnection {
  /** The CLI's working directory and the default directory of new sessions. */
  readonly cwd: string;
  readonly shell: SupervisedShell<JsonRpcPeer>;
  version: string | undefined;
  loggedIn = false;
  private authMessage: string | undefined;

  constructor(
    private opts: CopilotAdapterOptions,
    sink: EventSink,
    capabilities: () => Capabilities,
    private on: CliHandlers,
  ) {
    const command = headlessCommand(opts.command);
    const provider = opts.provider;
    this.cwd = path.resolve(opts.cwd ?? opts.workspace);
    this.shell = new SupervisedShell<JsonRpcPeer>(
      {
        ...shellIdentity(opts, "copilot"),
        command,
        sink,
        describe: () => ({
          capabilities: capabilities(),
          version: this.version,
          // The provider's URL and key stay on the server: only its kind and the model are shown.
          ...(provider
            ? { location: `${command.join(" ")} · own ${provider.type} provider · ${opts.model ?? "gpt-4.1"}` }
            : {}),
        }),
        gate: (status, error) => this.gate(status, error),
      },
      {
        name: `${opts.id} (copilot headless)`,
        cwd: this.cwd,
        connect: (proc) => this.connect(proc),
        handshakeName: "the headless handshake (ping, status, auth)",
        handshake: (peer) => this.handshake(peer),
        close: (peer) => peer.close("the CLI process ended"),
        onExit: (exit, turnError) => this.on.exited(exit.generation, turnError),
        ...(opts.restart ? { restart: opts.restart } : {}),
        ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
      },
    );
  }

  /** The live CLI, if there is one now. */
  get current(): Cli | undefined {
    return this.shell.proc.current;
  }

  async peer(): Promise<Cli> {
    return this.shell.proc.whenReady();
  }

  /** One request to the CLI, with its errors as the console's. */
  async call(what: string, method: string, params: unknown, timeoutMs?: number): Promise<unknown> {
    const c = await this.peer();
    try {
      return await c.conn.request(method, params, timeoutMs ? { timeoutMs } : {});
    } catch (err) {
      throw mapRpcError(err, what, this.opts.label);
    }
  }

  private gate(status: BackendStatus, error: string | undefined) {
    // Up, but neither logged in nor given a provider: turns would fail ("No GitHub OAuth token").
    if (status === "ready" && !this.loggedIn && !this.opts.provider)
      return { status: "auth-required" as const, error: this.authHelp() };
    return { status, error };
  }

  private authHelp(): string {
    // Env values never reach the browser, so the variable is named, not its value.
    const home = this.opts.env?.COPILOT_HOME ? " with the COPILOT_HOME this backend's env sets" : "";
    return (
      `${this.authMessage ?? "Not authenticated"}. Run \`copilot login\` in a terminal (as the user the console ` +
      `runs as${home}), then restart this backend — or give it a provider (bring your own key).`
    );
  }

  private connect(p: SupervisedProcess): JsonRpcPeer {
    const gen = p.generation;
    const peer = new JsonRpcPeer({
      readable: p.stdout,
      writable: p.stdin,
      framing: contentLengthFraming(),
      timeoutMs: REQUEST_TIMEOUT_MS,
      onSkip: (reason, preview) => this.shell.proc.skipped(reason, preview),
    });
    peer.onNotification("session.event", (params) => this.on.event(gen, params));
    peer.onNotification("session.lifecycle", (params) => this.on.lifecycle(gen, params));
    peer.onRequest("userInput.request", (params, ctx) => this.on.userInput(gen, params, ctx.signal));
    peer.onRequest("exitPlanMode.request", (params, ctx) => this.on.exitPlanMode(gen, params, ctx.signal));
    void peer.closed.then(() => this.shell.proc.connectionClosed(gen));
    return peer;
  }

  private async handshake(peer: JsonRpcPeer) {
    const pong = parseResult(
      PingResult,
      await peer.request("ping", { message: "switchboard" }, { timeoutMs: 30_000 }),
      "ping",
    );
    if ((pong.protocolVersion ?? 0) < SDK_PROTOCOL_VERSION)
      throw new Error(
        `the CLI speaks protocol ${pong.protocolVersion ?? "?"}; ${SDK_PROTOCOL_VERSION} or newer is needed ` +
          "(update @github/copilot)",
      );
    const st = parseResult(StatusResult, await peer.request("status.get", {}), "status.get");
    this.version = st.version;
    const auth = parseResult(AuthStatus, await peer.request("auth.getStatus", {}), "auth.getStatus");
    this.loggedIn = auth.isAuthenticated;
    this.authMessage = auth.statusMessage;
    // A new process knows no session yet: each is resumed on first use.
    this.on.connected();
    log.info("Copilot headless ready", {
      backend: this.opts.id,
      version: this.version,
      loggedIn: this.loggedIn,
      byok: Boolean(this.opts.provider),
    });
  }
}
