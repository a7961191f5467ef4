import "server-only";
import path from "node:path";
import type { CreateSessionBody, InterruptAnswer, PromptBody } from "@/lib/api";
import type {
  Backend,
  BackendStatus,
  Capabilities,
  Interrupt,
  Message,
  ModelRef,
  Session,
  SessionOption,
  TimelineEvent,
} from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { SupervisedProcess } from "../../processes/supervisor";
import { AgentProcess } from "../shared/agent-process";
import { questionAnswers } from "../shared/answers";
import { resolveSessionDirectory } from "../shared/files";
import { contentLengthFraming } from "../shared/framing";
import { InterruptBook } from "../shared/interrupts";
import { JsonRpcError, JsonRpcPeer } from "../shared/json-rpc";
import { pageMessages, pageSessions } from "../shared/session-list";
import { obj, str } from "../shared/values";
import type { BackendAdapter, EventSink, LoadedSession, ModelInfo } from "../types";
import {
  CopilotTimeline,
  historyMessages,
  parseSessionEvent,
  permissionInterrupt,
  questionInterrupt,
} from "./normalize";
import {
  AuthStatus,
  CommandInvocation,
  CommandList,
  CommandRequest,
  LifecycleNotification,
  MessagesResult,
  MetadataResult,
  ModelsResult,
  PendingPermissions,
  PingResult,
  RewindPoints,
  RewindPreview,
  RewindResult,
  SendResult,
  SessionInfo,
  SessionList,
  SessionMetadata,
  StatusResult,
  SuccessResult,
  mapRpcError,
  parseResult,
} from "./rpc";

export interface CopilotProvider {
  type: "openai" | "azure" | "anthropic";
  baseUrl: string;
  apiKey?: string;
  wireApi?: "completions" | "responses";
}

export interface CopilotAdapterOptions {
  id: string;
  label: string;
  /** `[command, ...args]`; `--headless --stdio --no-auto-update` are added where missing. */
  command: string[];
  /** Extra environment (secrets welcome: never sent to the browser). */
  env?: Record<string, string>;
  /** The CLI's working directory and the default directory of new sessions. */
  cwd?: string;
  /** Bring your own key: sent with every `session.create` / `session.resume`, never to the browser. */
  provider?: CopilotProvider;
  /** The model of new sessions (required by Copilot with a provider; default gpt-4.1 then). */
  model?: string;
  /** The console's workspace root: session directories stay inside it (or inside `cwd`). */
  workspace: string;
  source?: "env" | "store";
  restart?: { initialMs?: number; maxMs?: number };
  /** How long a request waits for a (re)starting CLI before answering 503 (default 45 s). */
  readyTimeoutMs?: number;
  /** How long the CLI may ignore `session.abort` before the turn is ended here (default 10 s). */
  abortGraceMs?: number;
}

/** The flags the console's protocol needs; added to the command line where it lacks them. */
export const HEADLESS_FLAGS = ["--headless", "--stdio", "--no-auto-update"] as const;
const SDK_PROTOCOL_VERSION = 3;
const REQUEST_TIMEOUT_MS = 60_000;
const ABORT_GRACE_MS = 10_000;
const DEFAULT_TITLE = "New session";
const REASONING_EFFORTS = ["low", "medium", "high", "xhigh"] as const;
const MODES = [
  { value: "interactive", name: "Interactive", description: "Asks before running tools" },
  { value: "plan", name: "Plan", description: "Plans before changing anything" },
  { value: "autopilot", name: "Autopilot", description: "Works on its own until done" },
];

/** The command line with the headless flags added. */
export function headlessCommand(command: readonly string[]): string[] {
  const out = [...command];
  for (const f of HEADLESS_FLAGS) if (!out.includes(f)) out.push(f);
  return out;
}

/** What the adapter sends back for a pending interrupt (see `CopilotAdapter.answerInterrupt`). */
type Reply =
  | { kind: "sent" }
  | { kind: "cancel" }
  | { kind: "question"; answer: string; wasFreeform: boolean }
  | { kind: "dismissed" };

interface Runtime {
  id: string;
  tl: CopilotTimeline;
  /** The process generation this session was created in or resumed into (undefined: not attached). */
  gen?: number;
  attaching?: Promise<void>;
  /** A revert waiting for the next prompt: the rewind point (the user message's event id). */
  revert?: { messageId: string };
  /** The assistant message a crash ended (a notice follows when the CLI is back). */
  crashedMessageId?: string;
  abortTimer?: ReturnType<typeof setTimeout>;
  settings: { model?: string; reasoningEffort?: string; mode: string };
  localTitle?: string;
  /** The session's slash commands (`session.commands.list`), read on the first prompt that starts with `/`. */
  commands?: Set<string>;
  /** A reload asked for by another client's change (`session.lifecycle`), debounced. */
  reloadTimer?: ReturnType<typeof setTimeout>;
}

const commandId = () => `cmd_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

/** A `userInput.request` waiting for the user's answer. */
interface QuestionWait {
  resolve(reply: Reply): void;
}

/**
 * GitHub Copilot CLI headless server (`copilot --headless --stdio`, docs/backends/copilot.md) on
 * the shared blocks: the CLI runs under the console's supervisor (../shared/agent-process.ts) and is
 * spoken to over its stdio with JSON-RPC and `Content-Length` framing (../shared/json-rpc.ts,
 * ../shared/framing.ts); interrupts are kept in ../shared/interrupts.ts. `normalize.ts` maps the
 * CLI's session events. The CLI keeps its sessions itself (under COPILOT_HOME): the list, history
 * (`session.getMessages`) and resume after a console or CLI restart come from it.
 */
export class CopilotAdapter implements BackendAdapter {
  readonly id: string;
  private proc: AgentProcess<JsonRpcPeer>;
  /** `session.create` calls in flight: the lifecycle notifications they cause are not another client's. */
  private creating = 0;
  private command: string[];
  private status: BackendStatus = "connecting";
  private error: string | undefined;
  private version: string | undefined;
  private loggedIn = false;
  private authMessage: string | undefined;
  private runtimes = new Map<string, Runtime>();
  private interrupts: InterruptBook<Reply>;
  private questionWaits = new Map<string, QuestionWait>();
  private earlyReplies = new Map<string, Reply>();
  /** Questions refused from their event, by text: their `userInput.request` gets the reason as its error. */
  private refusedQuestions = new Map<string, string>();
  private defaultCwd: string;

  constructor(
    private opts: CopilotAdapterOptions,
    private sink: EventSink,
  ) {
    this.id = opts.id;
    this.command = headlessCommand(opts.command);
    this.defaultCwd = path.resolve(opts.cwd ?? opts.workspace);
    this.interrupts = new InterruptBook<Reply>({
      idPrefix: "cp",
      emit: (sessionId, events) => this.publish(sessionId, events),
    });
    this.proc = new AgentProcess<JsonRpcPeer>({
      name: `${opts.id} (copilot headless)`,
      label: opts.label,
      command: this.command,
      cwd: this.defaultCwd,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.restart ? { restart: opts.restart } : {}),
      ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
      handshakeName: "the headless handshake (ping, status, auth)",
      connect: (p) => this.connect(p),
      handshake: (peer) => this.handshake(peer),
      close: (peer) => peer.close("the CLI process ended"),
      onStatus: (status, error) => this.setStatus(status, error),
      onReady: (_live, notice) => notice && this.announceRestart(notice),
      onExit: (exit, turnError) => this.onExit(exit.generation, turnError),
    });
  }

  /* ------------------------------------------------------------------ info */

  capabilities(): Capabilities {
    return {
      fork: false,
      revert: true,
      diff: false,
      compact: true,
      models: true,
      share: false,
      history: true,
      abort: true,
      rename: true,
      delete: true,
      search: true,
      directories: true,
      // `@` mentions: `rg --files` in the session's directory; the prompt keeps `@path` in its text.
      mentions: { search: "workspace", carry: "text" },
      interrupts: { permission: true, question: true, input: true },
    };
  }

  info(): Backend {
    const masked = this.opts.env ? Object.fromEntries(Object.keys(this.opts.env).map((k) => [k, "***"])) : undefined;
    const p = this.opts.provider;
    // The provider's URL and key stay on the server: only its kind and the model are shown.
    const where = p
      ? `${this.command.join(" ")} · own ${p.type} provider · ${this.opts.model ?? "gpt-4.1"}`
      : this.command.join(" ");
    return {
      id: this.id,
      kind: "copilot",
      label: this.opts.label,
      status: this.status,
      ...(this.error ? { error: this.error } : {}),
      capabilities: this.capabilities(),
      location: where,
      ...(this.version ? { version: this.version } : {}),
      ...(this.opts.source ? { source: this.opts.source } : {}),
      config: {
        command: this.command,
        ...(masked ? { env: masked } : {}),
        ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}),
      },
      process: this.proc.processInfo(),
    };
  }

  logs(): string[] {
    return this.proc.logs();
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  private setStatus(status: BackendStatus, error?: string) {
    // Up, but neither logged in nor given a provider: turns would fail ("No GitHub OAuth token").
    if (status === "ready" && !this.loggedIn && !this.opts.provider) {
      status = "auth-required";
      error = this.authHelp();
    }
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.sink.backendChanged(this.info());
  }

  private authHelp(): string {
    // Env values never reach the browser, so the variable is named, not its value.
    const home = this.opts.env?.COPILOT_HOME ? " with the COPILOT_HOME this backend's env sets" : "";
    return `${this.authMessage ?? "Not authenticated"}. Run \`copilot login\` in a terminal (as the user the console runs as${home}), then restart this backend — or give it a provider (bring your own key).`;
  }

  /* ------------------------------------------------------------------ process and connection */

  async start(): Promise<void> {
    this.proc.start();
  }

  async stop(): Promise<void> {
    this.interrupts.expire(() => true, { kind: "cancel" });
    for (const rt of this.runtimes.values()) if (rt.abortTimer) clearTimeout(rt.abortTimer);
    await this.proc.stop();
  }

  async restart(): Promise<void> {
    this.proc.restart();
  }

  /** For tests and the fault e2e: kill the live CLI; the supervisor restarts it. */
  killProcess(signal: NodeJS.Signals = "SIGKILL"): void {
    this.proc.kill(signal);
  }

  async ready(timeoutMs?: number): Promise<void> {
    await this.proc.whenReady(timeoutMs);
  }

  private connect(p: SupervisedProcess): JsonRpcPeer {
    const gen = p.generation;
    const peer = new JsonRpcPeer({
      readable: p.stdout,
      writable: p.stdin,
      framing: contentLengthFraming(),
      timeoutMs: REQUEST_TIMEOUT_MS,
      onSkip: (reason, preview) => this.proc.skipped(reason, preview),
    });
    peer.onNotification("session.event", (params) => this.onEvent(gen, params));
    peer.onNotification("session.lifecycle", (params) => this.onLifecycle(gen, params));
    peer.onRequest("userInput.request", (params, ctx) => this.onUserInput(gen, params, ctx.signal));
    void peer.closed.then(() => this.proc.connectionClosed(gen));
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
        `the CLI speaks protocol ${pong.protocolVersion ?? "?"}; ${SDK_PROTOCOL_VERSION} or newer is needed (update @github/copilot)`,
      );
    const st = parseResult(StatusResult, await peer.request("status.get", {}), "status.get");
    this.version = st.version;
    const auth = parseResult(AuthStatus, await peer.request("auth.getStatus", {}), "auth.getStatus");
    this.loggedIn = auth.isAuthenticated;
    this.authMessage = auth.statusMessage;
    // A new process knows no session yet: each is resumed on first use.
    for (const rt of this.runtimes.values()) rt.gen = undefined;
    log.info("Copilot headless ready", {
      backend: this.id,
      version: this.version,
      loggedIn: this.loggedIn,
      byok: Boolean(this.opts.provider),
    });
  }

  private async peer(): Promise<{ gen: number; conn: JsonRpcPeer }> {
    return this.proc.whenReady();
  }

  /** One request to the CLI, with its errors as the console's. */
  private async call(what: string, method: string, params: unknown, timeoutMs?: number): Promise<unknown> {
    const c = await this.peer();
    try {
      return await c.conn.request(method, params, timeoutMs ? { timeoutMs } : {});
    } catch (err) {
      throw mapRpcError(err, what, this.opts.label);
    }
  }

  /** The CLI process of `gen` died: its requests are cancelled and its running turns fail. */
  private onExit(gen: number, turnError: string) {
    this.interrupts.expire((p) => p.epoch === gen, { kind: "cancel" });
    for (const rt of this.runtimes.values()) {
      if (rt.gen !== gen) continue;
      rt.gen = undefined;
      if (!rt.tl.busy) continue;
      const events = rt.tl.apply({
        id: `exit-${gen}-${Date.now()}`,
        type: "session.error",
        timestamp: Date.now(),
        data: { errorType: "AgentExited", message: turnError },
        ephemeral: true,
      });
      const failed = events.find(
        (e): e is Extract<TimelineEvent, { type: "message.updated" }> =>
          e.type === "message.updated" && Boolean(e.message.error),
      );
      rt.crashedMessageId = failed?.message.id;
      this.publish(rt.id, [
        ...events,
        ...rt.tl.apply({
          id: `exit-idle-${gen}`,
          type: "session.idle",
          timestamp: Date.now(),
          data: {},
          ephemeral: true,
        }),
      ]);
    }
  }

  private announceRestart(notice: string) {
    for (const rt of this.runtimes.values()) {
      if (!rt.crashedMessageId) continue;
      this.publish(rt.id, [
        {
          type: "block.updated",
          messageId: rt.crashedMessageId,
          block: { id: `${rt.crashedMessageId}:restart`, kind: "notice", level: "info", text: notice },
        },
      ]);
      rt.crashedMessageId = undefined;
    }
  }

  /* ------------------------------------------------------------------ events */

  /** Publishes a session's events; interrupts go through the interrupt book (with the way to answer them). */
  private publish(sessionId: string, events: TimelineEvent[]) {
    for (const e of events) this.sink.publish(this.id, sessionId, e);
  }

  private onEvent(gen: number, params: unknown) {
    const cur = this.proc.current;
    if (cur && cur.gen !== gen) return;
    const p = parseSessionEvent(params);
    if (!p) return;
    const rt = this.runtimes.get(p.sessionId);
    if (!rt) return;
    try {
      if (p.event.type === "session.snapshot_rewind") {
        void this.reloadAfterRewind(rt);
        return;
      }
      if ((p.event.type === "command.queued" || p.event.type === "command.execute") && cur) {
        void (p.event.type === "command.queued"
          ? this.runQueuedCommand(rt, cur.conn, p.event.data)
          : this.answerCommandExecute(rt, cur.conn, p.event.data));
        return;
      }
      if (p.event.type === "session.idle" && rt.abortTimer) {
        clearTimeout(rt.abortTimer);
        rt.abortTimer = undefined;
      }
      const out: TimelineEvent[] = [];
      for (const e of rt.tl.apply(p.event)) {
        if (e.type === "interrupt.requested") {
          this.flush(rt.id, out);
          // `userInput.request` can come before its `user_input.requested` event; `onUserInput` has
          // then raised the question already, and it must not be shown twice.
          if (!this.questionAlreadyWaiting(rt, e.interrupt)) this.raise(rt, e.interrupt, gen);
        } else if (e.type === "interrupt.resolved") {
          this.flush(rt.id, out);
          // Answered here: already resolved by `answerInterrupt`; answered elsewhere: resolve it now.
          if (this.interrupts.get(e.interruptId)) this.interrupts.settle(e.interruptId, e.outcome, { kind: "sent" });
        } else out.push(e);
      }
      this.flush(rt.id, out);
    } catch (err) {
      log.warn("skipped a Copilot event that could not be applied", {
        backend: this.id,
        type: p.event.type,
        error: describeError(err),
      });
    }
  }

  /* ------------------------------------------------------------------ slash commands, other clients */

  /**
   * The CLI hands a queued slash command to its client (`command.queued`) only when a client
   * declared interest in them (`session.eventLog.registerInterest`); without an answer its command
   * queue stalls. Best effort: an older CLI without the method queues nothing to us.
   */
  private async registerInterest(conn: JsonRpcPeer, sessionId: string) {
    await conn
      .request("session.eventLog.registerInterest", { sessionId, eventType: "command.queued" })
      .catch((err: unknown) =>
        log.warn("could not register interest in queued commands", { backend: this.id, error: describeError(err) }),
      );
  }

  /** A prompt that is one of the session's slash commands (`/name args`, built in or a client's). */
  private async isSlashCommand(rt: Runtime, conn: JsonRpcPeer, text: string): Promise<boolean> {
    const m = /^\/([A-Za-z][\w-]*)(?:\s|$)/.exec(text.trim());
    if (!m) return false;
    if (!rt.commands) {
      try {
        const list = parseResult(
          CommandList,
          await conn.request("session.commands.list", { sessionId: rt.id }),
          "session.commands.list",
        );
        rt.commands = new Set(
          list.commands.flatMap((cmd) => [cmd.name, ...(cmd.aliases ?? [])].map((n) => n.toLowerCase())),
        );
      } catch (err) {
        log.warn("session.commands.list failed: the prompt goes to the model", {
          backend: this.id,
          error: describeError(err),
        });
        return false;
      }
    }
    return rt.commands.has(m[1]!.toLowerCase());
  }

  /** Shows the command as the user's message and hands it to the CLI's command queue (FIFO behind a running turn). */
  private async enqueueCommand(rt: Runtime, conn: JsonRpcPeer, text: string) {
    const now = Date.now();
    const id = commandId();
    this.publish(rt.id, [
      { type: "message.updated", message: { id, sessionId: rt.id, role: "user", createdAt: now } },
      { type: "block.updated", messageId: id, block: { id: `${id}:t`, kind: "text", text: text.trim() } },
    ]);
    try {
      await conn.request("session.commands.enqueue", { sessionId: rt.id, command: text.trim() });
    } catch (err) {
      this.commandReply(
        rt,
        `${id}:r`,
        [
          {
            kind: "notice",
            level: "error",
            text: `Copilot did not take ${text.trim().split(/\s/)[0]}: ${describeError(err)}`,
          },
        ],
        true,
      );
      throw mapRpcError(err, "queue the command", this.opts.label);
    }
  }

  /** A command's output as an assistant message (a command runs no model turn). */
  private commandReply(
    rt: Runtime,
    id: string,
    blocks: ({ kind: "text"; text: string } | { kind: "notice"; level: "info" | "error"; text: string })[],
    failed = false,
  ) {
    const now = Date.now();
    this.publish(rt.id, [
      {
        type: "message.updated",
        message: {
          id,
          sessionId: rt.id,
          role: "assistant",
          createdAt: now,
          completedAt: now,
          ...(failed ? { error: { name: "CommandFailed", message: "The command failed" } } : {}),
        },
      },
      ...blocks.map((b, i) => ({ type: "block.updated" as const, messageId: id, block: { id: `${id}:${i}`, ...b } })),
    ]);
  }

  /**
   * `command.queued`: the CLI's turn has come for a queued slash command, and its client runs it
   * (`session.commands.invoke`), shows what it produced, and says whether it ran
   * (`session.commands.respondToQueuedCommand`), so the queue goes on either way.
   */
  private async runQueuedCommand(rt: Runtime, conn: JsonRpcPeer, data: unknown) {
    const req = CommandRequest.safeParse(data);
    if (!req.success) return;
    const command = (req.data.command ?? "").trim();
    const m = /^\/?([^\s]+)\s*([\s\S]*)$/.exec(command);
    const id = `${commandId()}:r`;
    let handled = false;
    try {
      if (!m) throw new Error(`not a command: ${command}`);
      const res = parseResult(
        CommandInvocation,
        await conn.request(
          "session.commands.invoke",
          { sessionId: rt.id, name: m[1], ...(m[2] ? { input: m[2] } : {}) },
          { timeoutMs: 120_000 },
        ),
        "session.commands.invoke",
      );
      handled = true;
      if (res.kind === "agent-prompt" && res.prompt) {
        this.commandReply(rt, id, [
          {
            kind: "notice",
            level: "info",
            text: res.notice ?? `/${m[1]} asks the agent: ${res.displayPrompt ?? res.prompt}`,
          },
        ]);
        await conn.request("session.send", {
          sessionId: rt.id,
          prompt: res.prompt,
          ...(rt.tl.busy ? { mode: "enqueue" } : {}),
        });
      } else if (res.kind === "text" && res.text) this.commandReply(rt, id, [{ kind: "text", text: res.text }]);
      else
        this.commandReply(rt, id, [{ kind: "notice", level: "info", text: res.message ?? res.text ?? `Ran /${m[1]}` }]);
    } catch (err) {
      this.commandReply(
        rt,
        id,
        [
          {
            kind: "notice",
            level: "error",
            text: `${command || "The command"} failed: ${err instanceof JsonRpcError ? err.message : describeError(err)}`,
          },
        ],
        true,
      );
    }
    await conn
      .request("session.commands.respondToQueuedCommand", {
        sessionId: rt.id,
        requestId: req.data.requestId,
        result: { handled },
      })
      .catch((err: unknown) =>
        log.warn("respondToQueuedCommand failed", { backend: this.id, error: describeError(err) }),
      );
  }

  /** `command.execute`: a command registered by a client; the console registers none, so one reaching it is answered as unknown (never left pending). */
  private async answerCommandExecute(rt: Runtime, conn: JsonRpcPeer, data: unknown) {
    const req = CommandRequest.safeParse(data);
    if (!req.success) return;
    await conn
      .request("session.commands.handlePendingCommand", {
        sessionId: rt.id,
        requestId: req.data.requestId,
        error: `Switchboard has no command /${req.data.commandName ?? "?"}`,
      })
      .catch(() => undefined);
  }

  /**
   * `session.lifecycle`: sessions created, changed or deleted by any client of the CLI. Another
   * client's new session appears in the list; a change to a session this process is not attached to
   * (another client drives it) reloads it where it is open; a deleted one is forgotten.
   */
  private onLifecycle(gen: number, params: unknown) {
    const cur = this.proc.current;
    if (cur && cur.gen !== gen) return;
    const n = LifecycleNotification.safeParse(params);
    if (!n.success) return;
    const { type, sessionId, metadata } = n.data;
    const rt = this.runtimes.get(sessionId);
    if (type === "session.deleted") {
      if (!rt) return;
      this.interrupts.expire((p) => p.sessionId === sessionId, { kind: "cancel" });
      if (rt.reloadTimer) clearTimeout(rt.reloadTimer);
      this.runtimes.delete(sessionId);
      return;
    }
    if (type !== "session.created" && type !== "session.updated") return;
    if (!rt) {
      // Another client's session (this console registers its own before it publishes anything).
      if (this.creating > 0 || !metadata) return;
      const at = (t?: string) => (t && Number.isFinite(Date.parse(t)) ? Date.parse(t) : Date.now());
      const session: Session = {
        id: sessionId,
        backendId: this.id,
        title: metadata.summary?.trim() || DEFAULT_TITLE,
        createdAt: at(metadata.startTime),
        updatedAt: at(metadata.modifiedTime),
        status: "idle",
      };
      this.publish(sessionId, [{ type: "session.updated", session }]);
      return;
    }
    if (rt.gen === cur?.gen || !this.sink.openSessions(this.id).includes(sessionId)) return;
    if (rt.reloadTimer) clearTimeout(rt.reloadTimer);
    rt.reloadTimer = setTimeout(() => {
      rt.reloadTimer = undefined;
      void this.loadSession(sessionId)
        .then((fresh) => this.sink.reconcile(this.id, sessionId, fresh))
        .catch((err: unknown) =>
          log.warn("could not reload a session another client changed", {
            backend: this.id,
            error: describeError(err),
          }),
        );
    }, 300);
    rt.reloadTimer.unref?.();
  }

  private flush(sessionId: string, out: TimelineEvent[]) {
    if (out.length) this.publish(sessionId, out.splice(0));
  }

  private questionAlreadyWaiting(rt: Runtime, it: Interrupt): boolean {
    if (it.kind !== "question") return false;
    const text = it.questions?.[0]?.question;
    return this.interrupts
      .list(rt.id)
      .some((i) => i.kind === "question" && this.questionWaits.has(i.id) && i.questions?.[0]?.question === text);
  }

  /** Raises an interrupt; the message the CLI was given when it is over the console's bounds. */
  private raise(rt: Runtime, it: Interrupt, gen: number): string | undefined {
    return this.interrupts.raise({
      sessionId: rt.id,
      interrupt: it,
      key: it.id,
      epoch: gen,
      respond: (reply) => {
        if (it.kind !== "question") return;
        const w = this.questionWaits.get(it.id);
        if (w) w.resolve(reply);
        else this.earlyReplies.set(it.id, reply);
      },
      refuse: (message) => this.refuse(rt, it, gen, message),
    }).refused;
  }

  /**
   * Answers a request the console refused (lib/interrupt-limits.ts): a form is cancelled and a
   * permission rejected with the reason as feedback (the CLI's answers carry no error); a question's
   * `userInput.request` gets the reason as its error.
   */
  private refuse(rt: Runtime, it: Interrupt, gen: number, message: string) {
    if (it.kind === "question") {
      this.refusedQuestions.set(it.questions?.[0]?.question ?? "", message);
      if (this.refusedQuestions.size > 50) this.refusedQuestions.delete(this.refusedQuestions.keys().next().value!);
      return;
    }
    const c = this.proc.current;
    if (!c || c.gen !== gen) return;
    const call =
      it.kind === "permission"
        ? c.conn.request("session.permissions.handlePendingPermissionRequest", {
            sessionId: rt.id,
            requestId: it.id.replace(/^perm_/, ""),
            result: { kind: "reject", feedback: message },
          })
        : c.conn.request("session.ui.handlePendingElicitation", {
            sessionId: rt.id,
            requestId: it.id.replace(/^form_/, ""),
            result: { action: "cancel" },
          });
    void call.catch((err: unknown) =>
      log.warn("could not answer a refused request", { backend: this.id, error: describeError(err) }),
    );
  }

  /**
   * `userInput.request` (the ask_user tool): the CLI waits for this request's answer. The question
   * itself was raised from its `user_input.requested` event just before; the answer given to it is
   * this request's result.
   */
  private onUserInput(
    gen: number,
    params: unknown,
    signal: AbortSignal,
  ): Promise<{ answer: string; wasFreeform: boolean }> {
    const p = obj(params);
    const rt = this.runtimes.get(str(p.sessionId) ?? "");
    if (!rt) return Promise.reject(new JsonRpcError(-32602, "Unknown session"));
    const question = str(p.question) ?? "";
    const refusedBefore = this.refusedQuestions.get(question);
    if (refusedBefore !== undefined) {
      this.refusedQuestions.delete(question);
      return Promise.reject(new JsonRpcError(-32000, refusedBefore));
    }
    let it = this.interrupts
      .list(rt.id)
      .find((i) => i.kind === "question" && i.questions?.[0]?.question === question && !this.questionWaits.has(i.id));
    if (!it) {
      const made = questionInterrupt(rt.id, this.interrupts.newId(), p, Date.now());
      if (!made) return Promise.reject(new JsonRpcError(-32602, "A question is needed"));
      const refused = this.raise(rt, made, gen);
      if (refused !== undefined) {
        this.refusedQuestions.delete(question);
        return Promise.reject(new JsonRpcError(-32000, refused));
      }
      it = made;
    }
    const id = it.id;
    return new Promise((resolve, reject) => {
      const finish = (reply: Reply) => {
        this.questionWaits.delete(id);
        if (reply.kind === "question") resolve({ answer: reply.answer, wasFreeform: reply.wasFreeform });
        else
          reject(
            new JsonRpcError(
              -32000,
              reply.kind === "dismissed" ? "The user dismissed the question" : "The question was cancelled",
            ),
          );
      };
      const early = this.earlyReplies.get(id);
      if (early) {
        this.earlyReplies.delete(id);
        finish(early);
        return;
      }
      this.questionWaits.set(id, { resolve: finish });
      signal.addEventListener(
        "abort",
        () => this.interrupts.settle(id, "cancelled", { kind: "cancel" }) || finish({ kind: "cancel" }),
        { once: true },
      );
    });
  }

  /* ------------------------------------------------------------------ sessions */

  private sessionParams(cwd?: string) {
    const model = this.opts.model ?? (this.opts.provider ? "gpt-4.1" : undefined);
    const p = this.opts.provider;
    return {
      ...(model ? { model } : {}),
      ...(p
        ? {
            provider: {
              type: p.type,
              baseUrl: p.baseUrl,
              ...(p.apiKey ? { apiKey: p.apiKey } : {}),
              ...(p.wireApi ? { wireApi: p.wireApi } : {}),
            },
          }
        : {}),
      streaming: true,
      requestPermission: true,
      requestUserInput: true,
      requestElicitation: true,
      // rewind points restore files only when the CLI tracks them
      enableFileChangeTracking: true,
      ...(cwd ? { workingDirectory: cwd } : {}),
      clientName: "switchboard",
    };
  }

  private runtime(session: Session, info?: SessionInfo): Runtime {
    let rt = this.runtimes.get(session.id);
    if (!rt) {
      rt = { id: session.id, tl: new CopilotTimeline(session), settings: { mode: "interactive" } };
      this.runtimes.set(session.id, rt);
    }
    if (info) {
      const model = info.modelState?.modelId;
      if (model) rt.settings.model = model;
      if (info.modelState?.reasoningEffort) rt.settings.reasoningEffort = info.modelState.reasoningEffort;
      if (info.mode) rt.settings.mode = info.mode;
      rt.tl.session = {
        ...rt.tl.session,
        ...(model ? { model: { id: model } } : {}),
        settings: { options: this.options(rt) },
      };
    }
    return rt;
  }

  private sessionOf(rt: Runtime): Session {
    const s = rt.tl.session;
    return {
      ...s,
      status: rt.tl.busy ? "busy" : "idle",
      ...(rt.localTitle ? { title: rt.localTitle } : {}),
      ...(rt.revert ? { revert: { messageId: rt.revert.messageId, deferred: true } } : {}),
    };
  }

  private fromMetadata(m: SessionMetadata): Session {
    const created = Date.parse(m.startTime ?? "");
    const updated = Date.parse(m.modifiedTime ?? "");
    const title = (m.name ?? m.summary ?? "").trim() || DEFAULT_TITLE;
    return {
      id: m.sessionId,
      backendId: this.id,
      title,
      ...(m.context?.cwd ? { directory: m.context.cwd } : {}),
      createdAt: Number.isFinite(created) ? created : 0,
      updatedAt: Number.isFinite(updated) ? updated : Number.isFinite(created) ? created : 0,
      status: "idle",
    };
  }

  async listSessions(q: {
    search?: string;
    limit: number;
    cursor?: string;
  }): Promise<{ items: Session[]; nextCursor?: string }> {
    const res = parseResult(SessionList, await this.call("list sessions", "session.list", {}), "session.list");
    const all: Session[] = [];
    const listed = new Set<string>();
    for (const raw of res.sessions) {
      const m = SessionMetadata.safeParse(raw);
      if (!m.success) continue;
      listed.add(m.data.sessionId);
      const known = this.runtimes.get(m.data.sessionId);
      const fresh = this.fromMetadata(m.data);
      all.push(
        known ? { ...this.sessionOf(known), updatedAt: Math.max(fresh.updatedAt, known.tl.session.updatedAt) } : fresh,
      );
    }
    // The CLI lists a session once it has a message: new, empty ones are known here only.
    for (const rt of this.runtimes.values()) if (!listed.has(rt.id)) all.push(this.sessionOf(rt));
    return pageSessions(all, q);
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    const cwd = await resolveSessionDirectory(input.directory, this.defaultCwd, this.opts.workspace);
    const c = await this.peer();
    let info: SessionInfo;
    this.creating++;
    try {
      info = parseResult(
        SessionInfo,
        await c.conn.request("session.create", this.sessionParams(cwd)),
        "session.create",
      );
    } catch (err) {
      throw mapRpcError(err, "create a session", this.opts.label);
    } finally {
      this.creating--;
    }
    const now = Date.now();
    const session: Session = {
      id: info.sessionId,
      backendId: this.id,
      title: input.title?.trim() || DEFAULT_TITLE,
      directory: cwd,
      createdAt: now,
      updatedAt: now,
      status: "idle",
    };
    const rt = this.runtime(session, info);
    rt.gen = c.gen;
    await this.registerInterest(c.conn, rt.id);
    if (input.model && input.model.id !== rt.settings.model) await this.switchModel(rt, input.model.id);
    if (input.title?.trim()) await this.setName(rt, input.title.trim());
    return this.sessionOf(rt);
  }

  /** The runtime of a session, from the CLI's list when this console has not seen it yet (404 when unknown). */
  private async known(sessionId: string): Promise<Runtime> {
    const rt = this.runtimes.get(sessionId);
    if (rt) return rt;
    let meta: SessionMetadata | undefined;
    try {
      const res = parseResult(
        MetadataResult,
        await this.call("read the session", "session.getMetadata", { sessionId }),
        "session.getMetadata",
      );
      const m = SessionMetadata.safeParse(res.session);
      meta = m.success ? m.data : undefined;
    } catch (err) {
      if ((err as ApiError).code === "backend_down") throw err;
      meta = undefined;
    }
    if (!meta) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    return this.runtime(this.fromMetadata(meta));
  }

  /** Makes sure the live CLI has the session loaded (`session.resume` after a restart of either side). */
  private async attach(rt: Runtime): Promise<{ gen: number; conn: JsonRpcPeer }> {
    for (;;) {
      const c = await this.peer();
      if (rt.gen === c.gen) return c;
      if (!rt.attaching) {
        rt.attaching = (async () => {
          try {
            const res = await c.conn.request("session.resume", {
              sessionId: rt.id,
              ...this.sessionParams(rt.tl.session.directory),
            });
            const info = parseResult(SessionInfo, res, "session.resume");
            this.runtime(rt.tl.session, info);
            rt.gen = c.gen;
            await this.registerInterest(c.conn, rt.id);
          } catch (err) {
            throw mapRpcError(err, "resume the session", this.opts.label);
          } finally {
            rt.attaching = undefined;
          }
        })();
      }
      await rt.attaching;
    }
  }

  async getSession(sessionId: string): Promise<Session> {
    return this.sessionOf(await this.known(sessionId));
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    const rt = await this.known(sessionId);
    await this.setName(rt, title);
    this.publish(rt.id, [{ type: "session.updated", session: this.sessionOf(rt) }]);
    return this.sessionOf(rt);
  }

  private async setName(rt: Runtime, title: string) {
    const c = await this.attach(rt);
    try {
      await c.conn.request("session.name.set", { sessionId: rt.id, name: title });
      rt.tl.session = { ...rt.tl.session, title };
      rt.localTitle = undefined;
    } catch (err) {
      // An older CLI without session names: the console keeps the title itself.
      if (!(err instanceof JsonRpcError)) throw mapRpcError(err, "rename the session", this.opts.label);
      rt.localTitle = title;
    }
  }

  async deleteSession(sessionId: string): Promise<void> {
    const rt = await this.known(sessionId);
    if (rt.tl.busy) throw ApiError.conflict("Stop the running turn before deleting the session");
    const res = parseResult(
      SuccessResult,
      await this.call("delete the session", "session.delete", { sessionId }),
      "session.delete",
    );
    if (!res.success)
      throw ApiError.upstream(`${this.opts.label} could not delete the session${res.error ? `: ${res.error}` : ""}`);
    this.interrupts.expire((p) => p.sessionId === sessionId, { kind: "cancel" });
    this.runtimes.delete(sessionId);
  }

  /** The whole history, from the CLI's persisted events. */
  private async history(rt: Runtime): Promise<Message[]> {
    const c = await this.attach(rt);
    let res: MessagesResult;
    try {
      res = parseResult(
        MessagesResult,
        await c.conn.request("session.getMessages", { sessionId: rt.id }),
        "session.getMessages",
      );
    } catch (err) {
      throw mapRpcError(err, "read the history", this.opts.label);
    }
    const h = historyMessages(rt.tl.session, res.events);
    // Title, model and directory as the history tells them (a session this console did not create).
    rt.tl.session = { ...h.session, ...(rt.tl.session.settings ? { settings: rt.tl.session.settings } : {}) };
    return h.messages;
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    const rt = await this.known(sessionId);
    const messages = await this.history(rt);
    const page = pageMessages(messages, { limit: 100 });
    return {
      session: this.sessionOf(rt),
      messages: page.items,
      interrupts: this.interrupts.list(rt.id),
      todos: [],
      ...(page.nextCursor ? { olderCursor: page.nextCursor } : {}),
    };
  }

  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    const rt = await this.known(sessionId);
    return pageMessages(await this.history(rt), q);
  }

  private async reloadAfterRewind(rt: Runtime) {
    try {
      this.sink.reconcile(this.id, rt.id, await this.loadSession(rt.id));
    } catch (err) {
      log.warn("could not reload a session after a rewind", { backend: this.id, error: describeError(err) });
    }
  }

  /* ------------------------------------------------------------------ settings and models */

  private options(rt: Runtime): SessionOption[] {
    const model = rt.settings.model ?? this.opts.model;
    const models = [...new Set([model, this.opts.model].filter((m): m is string => Boolean(m)))];
    const effort = rt.settings.reasoningEffort ?? "default";
    return [
      ...(model
        ? [
            {
              id: "model",
              name: "Model",
              category: "model",
              source: "config" as const,
              type: "select" as const,
              value: model,
              choices: models.map((m) => ({ value: m, name: m })),
            },
          ]
        : []),
      {
        id: "reasoningEffort",
        name: "Reasoning effort",
        category: "thought_level",
        source: "config",
        type: "select",
        value: effort,
        choices: [
          ...(effort === "default" ? [{ value: "default", name: "Default" }] : []),
          ...REASONING_EFFORTS.map((e) => ({
            value: e,
            name: e === "xhigh" ? "Extra high" : e[0]!.toUpperCase() + e.slice(1),
          })),
        ],
      },
      {
        id: "mode",
        name: "Mode",
        category: "mode",
        source: "mode",
        type: "select",
        value: rt.settings.mode,
        choices: MODES,
      },
    ];
  }

  private async switchModel(rt: Runtime, modelId: string) {
    const c = await this.attach(rt);
    try {
      await c.conn.request("session.model.switchTo", { sessionId: rt.id, modelId });
    } catch (err) {
      throw mapRpcError(err, `switch to ${modelId}`, this.opts.label);
    }
    rt.settings.model = modelId;
    rt.tl.session = { ...rt.tl.session, model: { id: modelId }, settings: { options: this.options(rt) } };
  }

  async setSessionOption(sessionId: string, optionId: string, value: string | boolean): Promise<Session> {
    const rt = await this.known(sessionId);
    if (typeof value !== "string") throw ApiError.badRequest(`${optionId} takes one of its choices`);
    const opt = this.options(rt).find((o) => o.id === optionId);
    if (!opt) throw ApiError.notFound(`Unknown session option: ${optionId}`);
    if (optionId === "model") {
      await this.switchModel(rt, value);
    } else if (optionId === "reasoningEffort") {
      if (!(REASONING_EFFORTS as readonly string[]).includes(value))
        throw ApiError.badRequest(`Not a reasoning effort: ${value}`);
      const c = await this.attach(rt);
      await c.conn
        .request("session.model.setReasoningEffort", { sessionId: rt.id, reasoningEffort: value })
        .catch((err: unknown) => {
          throw mapRpcError(err, "change the reasoning effort", this.opts.label);
        });
      rt.settings.reasoningEffort = value;
    } else {
      if (!MODES.some((m) => m.value === value)) throw ApiError.badRequest(`Not a mode: ${value}`);
      const c = await this.attach(rt);
      await c.conn.request("session.mode.set", { sessionId: rt.id, mode: value }).catch((err: unknown) => {
        throw mapRpcError(err, "change the mode", this.opts.label);
      });
      rt.settings.mode = value;
    }
    rt.tl.session = { ...rt.tl.session, settings: { options: this.options(rt) } };
    const s = this.sessionOf(rt);
    this.publish(rt.id, [{ type: "session.updated", session: s }]);
    return s;
  }

  /** Copilot's models for the logged-in user; with a provider (no GitHub login), the configured model. */
  async models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    const configured = this.opts.model ?? (this.opts.provider ? "gpt-4.1" : undefined);
    const provider = this.opts.provider ? this.opts.provider.type : "copilot";
    if (!this.opts.provider && this.loggedIn) {
      try {
        const res = parseResult(ModelsResult, await this.call("list models", "models.list", {}), "models.list");
        const items = (res.models ?? []).map((m) => ({
          provider,
          providerLabel: "GitHub Copilot",
          id: m.id,
          label: m.name ?? m.id,
          ...(m.id === configured ? { isDefault: true } : {}),
        }));
        if (items.length) return { items, ...(configured ? { default: { provider, id: configured } } : {}) };
      } catch (err) {
        log.warn("models.list failed; offering the configured model", { backend: this.id, error: describeError(err) });
      }
    }
    const id = configured ?? "gpt-4.1";
    return { items: [{ provider, id, label: id, isDefault: true }], default: { provider, id } };
  }

  /* ------------------------------------------------------------------ turns */

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    const rt = await this.known(sessionId);
    if (body.parts.some((p) => p.type !== "text"))
      throw ApiError.badRequest(`${this.opts.label} takes text prompts here (no attachments)`);
    const text = body.parts.map((p) => (p.type === "text" ? p.text : "")).join("\n\n");
    // The hub materializes the turn even when no browser watches (the sidebar's status, the inbox).
    await this.sink.openSession?.(this.id, rt.id);
    const c = await this.attach(rt);
    if (rt.revert) await this.applyRevert(rt);
    if (await this.isSlashCommand(rt, c.conn, text)) return this.enqueueCommand(rt, c.conn, text);
    if (body.model && body.model.id !== rt.settings.model) await this.switchModel(rt, body.model.id);
    const wasBusy = rt.tl.busy;
    if (!wasBusy) {
      rt.tl.busy = true;
      this.publish(rt.id, [{ type: "session.status", status: "busy" }]);
    }
    try {
      // While a turn runs, Copilot queues the prompt itself ("enqueue").
      parseResult(
        SendResult,
        await c.conn.request("session.send", {
          sessionId: rt.id,
          prompt: text,
          ...(wasBusy ? { mode: "enqueue" } : {}),
        }),
        "session.send",
      );
    } catch (err) {
      if (!wasBusy) {
        rt.tl.busy = false;
        this.publish(rt.id, [{ type: "session.status", status: "idle" }]);
      }
      throw mapRpcError(err, "send the prompt", this.opts.label);
    }
  }

  async abort(sessionId: string): Promise<void> {
    const rt = await this.known(sessionId);
    if (!rt.tl.busy) return;
    const c = this.proc.current;
    if (c && rt.gen === c.gen)
      await c.conn
        .request("session.abort", { sessionId: rt.id })
        .catch((err: unknown) => log.warn("session.abort failed", { backend: this.id, error: describeError(err) }));
    // A CLI that ignores the abort must not leave the session busy forever.
    rt.abortTimer ??= setTimeout(() => {
      rt.abortTimer = undefined;
      if (!rt.tl.busy) return;
      const now = Date.now();
      this.interrupts.expire((p) => p.sessionId === rt.id, { kind: "cancel" });
      this.publish(rt.id, [
        ...rt.tl.apply({ id: `abort-${now}`, type: "abort", timestamp: now, data: {}, ephemeral: true }),
        ...rt.tl.apply({ id: `abort-idle-${now}`, type: "session.idle", timestamp: now, data: {}, ephemeral: true }),
      ]);
    }, this.opts.abortGraceMs ?? ABORT_GRACE_MS);
    rt.abortTimer.unref?.();
  }

  async compact(sessionId: string): Promise<void> {
    const rt = await this.known(sessionId);
    if (rt.tl.busy) throw ApiError.conflict("Wait for the running turn to end before compacting");
    const c = await this.attach(rt);
    let res: SuccessResult;
    try {
      res = parseResult(
        SuccessResult,
        await c.conn.request("session.history.compact", { sessionId: rt.id }, { timeoutMs: 180_000 }),
        "session.history.compact",
      );
    } catch (err) {
      throw mapRpcError(err, "compact the conversation", this.opts.label);
    }
    if (!res.success)
      throw ApiError.upstream(
        `${this.opts.label} could not compact the conversation${res.error ? `: ${res.error}` : ""}`,
      );
  }

  /* ------------------------------------------------------------------ revert (rewind points) */

  /**
   * Revert onto Copilot's rewind points: a point is a prompt (its user message). The revert is
   * checked (`previewRewind`) and marked — the timeline dims what goes — and carried out with the
   * next prompt (`rewind`, conversation and files), so Unrevert can still take it back until then.
   */
  async revert(sessionId: string, messageId: string): Promise<Session> {
    const rt = await this.known(sessionId);
    if (rt.tl.busy) throw ApiError.conflict("Wait for the running turn to end before reverting");
    const c = await this.attach(rt);
    const points = parseResult(
      RewindPoints,
      await c.conn.request("session.history.listRewindPoints", { sessionId: rt.id }).catch((err: unknown) => {
        throw mapRpcError(err, "list the rewind points", this.opts.label);
      }),
      "listRewindPoints",
    );
    if (!points.points.some((p) => p.eventId === messageId)) {
      const history = await this.history(rt);
      if (!history.some((m) => m.id === messageId)) throw ApiError.notFound(`Unknown message: ${messageId}`);
      throw ApiError.conflict(
        `${this.opts.label} rewinds to one of your prompts: revert from a prompt, not from a reply`,
      );
    }
    const preview = parseResult(
      RewindPreview,
      await c.conn
        .request("session.history.previewRewind", { sessionId: rt.id, eventId: messageId })
        .catch((err: unknown) => {
          throw mapRpcError(err, "preview the rewind", this.opts.label);
        }),
      "previewRewind",
    );
    if (!preview.available)
      throw ApiError.conflict(`${this.opts.label} cannot rewind here${preview.reason ? ` (${preview.reason})` : ""}`);
    rt.revert = { messageId };
    const s = this.sessionOf(rt);
    this.publish(rt.id, [{ type: "session.updated", session: s }]);
    return s;
  }

  async unrevert(sessionId: string): Promise<Session> {
    const rt = await this.known(sessionId);
    rt.revert = undefined;
    const s = this.sessionOf(rt);
    this.publish(rt.id, [{ type: "session.updated", session: s }]);
    return s;
  }

  /** Carries out a pending revert: the CLI restores the files and drops the conversation from the point. */
  private async applyRevert(rt: Runtime) {
    const point = rt.revert;
    if (!point) return;
    const c = await this.attach(rt);
    let res: RewindResult;
    try {
      res = parseResult(
        RewindResult,
        await c.conn.request(
          "session.history.rewind",
          { sessionId: rt.id, eventId: point.messageId, mode: "conversation-and-files" },
          { timeoutMs: 120_000 },
        ),
        "rewind",
      );
    } catch (err) {
      throw mapRpcError(err, "rewind the session", this.opts.label);
    }
    if (res.outcome !== "success")
      throw ApiError.conflict(
        `${this.opts.label} could not rewind: ${res.outcome}${res.error ? ` (${res.error})` : ""}`,
      );
    rt.revert = undefined;
    this.publish(rt.id, [{ type: "session.updated", session: this.sessionOf(rt) }]);
    // The dropped messages leave the timeline (the hub diffs the fresh history against its state).
    this.sink.reconcile(this.id, rt.id, await this.loadSession(rt.id));
  }

  /* ------------------------------------------------------------------ interrupts */

  pendingInterrupts(): Interrupt[] {
    return this.interrupts.list();
  }

  /** Re-reads the CLI's pending permission requests of every attached session (after a reconnect). */
  async refreshInterrupts(): Promise<void> {
    const c = this.proc.current;
    if (!c) return;
    for (const rt of this.runtimes.values()) {
      if (rt.gen !== c.gen) continue;
      const res = parseResult(
        PendingPermissions,
        await c.conn.request("session.permissions.pendingRequests", { sessionId: rt.id }),
        "pendingRequests",
      );
      const open = new Set<string>();
      for (const item of res.items) {
        const it = permissionInterrupt(rt.id, {
          id: item.requestId,
          type: "permission.requested",
          timestamp: Date.now(),
          data: { requestId: item.requestId, promptRequest: item.request },
          ephemeral: false,
        });
        if (!it) continue;
        open.add(it.id);
        if (!this.interrupts.get(it.id)) this.raise(rt, it, c.gen);
      }
      for (const it of this.interrupts.list(rt.id))
        if (it.kind === "permission" && !open.has(it.id))
          this.interrupts.settle(it.id, "answered elsewhere", { kind: "sent" });
    }
  }

  async answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    const p = this.interrupts.take(sessionId, interruptId);
    const it = p.interrupt;
    const rt = this.runtimes.get(p.sessionId);
    const c = this.proc.current;
    if (!rt || !c || c.gen !== p.epoch) {
      this.interrupts.settle(interruptId, "cancelled", { kind: "cancel" });
      throw ApiError.conflict("The CLI that asked has restarted; the request is gone");
    }
    if (it.kind === "question") {
      if ("dismiss" in answer) {
        this.interrupts.settle(interruptId, "cancelled", { kind: "dismissed" });
        return;
      }
      const picked = questionAnswers(it, answer)[0]!;
      const value = picked.join(", ");
      const options = it.questions?.[0]?.options.map((o) => o.label) ?? [];
      this.interrupts.settle(interruptId, "answered", {
        kind: "question",
        answer: value,
        wasFreeform: !picked.every((x) => options.includes(x)),
      });
      return;
    }
    if (it.kind === "permission") {
      const requestId = interruptId.replace(/^perm_/, "");
      let result: Record<string, unknown>;
      let outcome: string;
      if ("dismiss" in answer) {
        result = { kind: "reject" };
        outcome = "reject";
      } else if ("decision" in answer) {
        const option = it.permission?.options.find((o) => o.kind === answer.decision);
        if (!option)
          throw ApiError.badRequest(
            answer.decision === "allow_always"
              ? "Copilot offers no session-wide approval for this request: allow it once"
              : `This request offers no "${answer.decision}" option`,
          );
        result =
          answer.decision === "reject"
            ? { kind: "reject", ...(answer.message ? { feedback: answer.message } : {}) }
            : { kind: option.id };
        outcome = answer.decision;
      } else throw ApiError.badRequest("A permission request is answered with {decision, message?} or {dismiss: true}");
      await this.sendAnswer(
        c.conn,
        interruptId,
        "session.permissions.handlePendingPermissionRequest",
        { sessionId: rt.id, requestId, result },
        outcome,
      );
      return;
    }
    // An input form (MCP elicitation).
    const requestId = interruptId.replace(/^form_/, "");
    let result: Record<string, unknown>;
    if ("dismiss" in answer) result = { action: "cancel" };
    else if ("action" in answer) {
      if (answer.action === "accept" && it.input?.schema && !answer.values)
        throw ApiError.badRequest("Accepting a form takes its values");
      result =
        answer.action === "accept" ? { action: "accept", content: answer.values ?? {} } : { action: answer.action };
    } else if ("text" in answer && !it.input?.schema) result = { action: "accept", content: {} };
    else throw ApiError.badRequest("A form is answered with {action: accept|decline|cancel, values?}");
    await this.sendAnswer(
      c.conn,
      interruptId,
      "session.ui.handlePendingElicitation",
      { sessionId: rt.id, requestId, result },
      String(result.action),
    );
  }

  /** Sends an answer the CLI confirms with `{success}`; false means someone else answered first (409). */
  private async sendAnswer(conn: JsonRpcPeer, interruptId: string, method: string, params: unknown, outcome: string) {
    let res: SuccessResult;
    try {
      res = parseResult(SuccessResult, await conn.request(method, params), method);
    } catch (err) {
      throw mapRpcError(err, "send the answer", this.opts.label);
    }
    if (!res.success) {
      this.interrupts.settle(interruptId, "answered elsewhere", { kind: "sent" });
      throw ApiError.conflict("This request was already answered");
    }
    this.interrupts.settle(interruptId, outcome, { kind: "sent" });
  }
}
