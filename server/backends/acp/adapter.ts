import "server-only";
import type { AgentCapabilities, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { CreateSessionBody, InterruptAnswer, PromptBody } from "@/lib/api";
import type { Backend, Capabilities, Message, Session, TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import { fallBackToLegacyFlag } from "./legacy-flags";
import { withTimeout } from "../shared/agent-process";
import { resolveSessionDirectory } from "../shared/files";
import type { StdioAdapterOptions } from "../shared/kind";
import { ndjsonLines } from "../shared/framing";
import { InterruptBook } from "../shared/interrupts";
import { firstPage, pageMessages } from "../shared/session-list";
import { SupervisedAdapter, SupervisedShell, shellIdentity } from "../shared/stdio-shell";
import { keptSessions, type KeptSessions } from "../shared/session-records";
import { isBusy } from "../shared/turn-lifecycle";
import type { BackendAdapter, EventSink, LoadedSession, TerminalLogin } from "../types";
import { AcpClient } from "./client";
import { AcpAuth } from "./credentials";
import type { AcpLink, AcpVersion } from "./link";
import { appendNotice, applySessionSetup, applyUpdate, renameSession } from "./normalize";
import { AcpSessions, DEFAULT_TITLE, REQUEST_TIMEOUT_MS, drainIncoming, type Conn, type Runtime } from "./sessions";
import { AcpTurns, CANCELLED } from "./turns";

/** `command` is the agent's, e.g. `["copilot", "--acp", "--no-auto-update"]`. */
export interface AcpAdapterOptions extends StdioAdapterOptions {
  /** The console's version, sent in `initialize`. */
  version?: string;
  restart?: { initialMs?: number; maxMs?: number };
  /** How long an agent may ignore `session/cancel` before the turn is ended locally (default 10 s). */
  cancelGraceMs?: number;
  /** How long a request waits for a (re)starting agent before answering 503 (default 45 s). */
  readyTimeoutMs?: number;
  /** 1: ask this agent for ACP v1 only (config `acpVersion`), for an agent whose v2 misbehaves. */
  acpVersion?: 1 | undefined;
}

/** `session/update` kinds that carry conversation history (what a replay consists of), v1's and v2's. */
const REPLAYED_UPDATES = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
  "usage_update",
  "user_message",
  "agent_message",
  "agent_thought",
  "terminal_update",
  "terminal_output_chunk",
  "plan_update",
]);
/**
 * ACP agent adapter (docs/backends/acp.md): the ACP mapping on the shared blocks — the stdio shell
 * (../shared/stdio-shell.ts: the supervised agent process, status, info, logs, restart notices),
 * permission interrupts (../shared/interrupts.ts), the console-kept transcript
 * (../shared/transcripts.ts). Spoken to with `@agentclientprotocol/sdk`: ./client.ts answers what
 * the agent asks (updates, permissions, file reads and writes confined to the session's directory),
 * ./turns.ts runs prompts (in the background) and cancel, ./sessions.ts list/load/resume, and
 * ./normalize.ts turns updates into canonical events. Here: the handshake and authentication, and
 * the sessions' requests (new, rename, delete, fork where advertised, options).
 */
export class AcpAdapter extends SupervisedAdapter<AcpLink> implements BackendAdapter {
  protected get supervised() {
    return this.shell;
  }

  readonly id: string;
  private shell: SupervisedShell<AcpLink>;
  private agentCaps: AgentCapabilities = {};
  /** The ACP version the running agent agreed to (./link.ts). */
  private version: AcpVersion | undefined;
  /** Auth methods, credentials (the agent's environment) and the post-handshake check. */
  private auth: AcpAuth;
  private agentInfo: { name?: string; title?: string | null; version?: string } | undefined;
  private sessions: AcpSessions;
  private interrupts: InterruptBook<RequestPermissionResponse>;
  private client: AcpClient;
  private turns: AcpTurns;
  /** The sessions' directory, kept transcripts, and what this adapter emitted (saved from it). */
  private kept: KeptSessions;
  /** What is spawned: the configured command, with a renamed flag's older form once the agent refused it. */
  private spawned: string[];

  constructor(
    private opts: AcpAdapterOptions,
    sink: EventSink,
  ) {
    super();
    this.id = opts.id;
    this.spawned = [...opts.command];
    this.kept = keptSessions(opts, sink);
    const { defaultCwd } = this.kept;
    this.auth = new AcpAuth({
      backendId: opts.id,
      label: opts.label,
      store: opts.store,
      env: opts.env,
      defaultCwd,
      command: opts.command,
      changed: () => this.shell.changed(),
      loggedIn: () => this.shell.setStatus("ready"),
    });
    this.interrupts = new InterruptBook({
      idPrefix: "perm",
      emit: (sessionId, events) => this.emitTo(sessionId, events),
    });
    this.shell = new SupervisedShell<AcpLink>(
      {
        ...shellIdentity(opts, "acp"),
        sink,
        describe: () => ({
          capabilities: this.capabilities(),
          version: this.agentInfo?.version,
          extra: {
            ...this.auth.describe(),
            ...(this.version
              ? { protocol: `ACP v${this.version}${opts.acpVersion === 1 ? " (v2 turned off)" : ""}` }
              : {}),
          },
        }),
        // Up, but the agent cannot open a session without credentials.
        gate: (status, error) =>
          status === "ready" && this.auth.blocked
            ? { status: "auth-required", error: this.auth.blocked }
            : { status, error },
      },
      {
        cwd: defaultCwd,
        // The same object, updated in place when credentials change: the supervisor reads it at each spawn.
        env: this.auth.env,
        framing: ndjsonLines,
        ...(opts.restart ? { restart: opts.restart } : {}),
        ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
        handshakeName: "the ACP handshake",
        connect: (p) => this.client.connect(p),
        handshake: (conn, gen) => this.handshake(conn, gen),
        close: (conn) => conn.close(),
        command: this.spawned,
        onExit: (exit, turnError) => {
          const swap = fallBackToLegacyFlag(this.spawned, this.shell.proc.logs());
          if (swap)
            log.info("the agent does not know its current ACP flag: starting it with the older one", {
              backend: opts.id,
              ...swap,
            });
          for (const t of this.turns.processDied(exit.generation, turnError))
            this.shell.noteCrash(t.sessionId, t.messageId);
        },
        restartNotice: (sessionId, messageId, notice) => {
          const rt = this.sessions.known(sessionId);
          if (rt) this.emit(rt, appendNotice(rt.norm, messageId, "info", notice));
        },
      },
    );
    const proc = this.shell.proc;
    this.sessions = new AcpSessions({
      backendId: opts.id,
      defaultCwd,
      proc,
      agentCaps: () => this.agentCaps,
      sink,
      transcripts: this.kept.transcripts,
      records: this.kept.records,
      emit: (rt, events) => this.emit(rt, events),
      mapError: (err, what) => this.mapError(err, what),
      call: (what, fn) => this.call(what, fn),
    });
    const host = { backendId: opts.id, sessions: this.sessions, interrupts: this.interrupts, proc };
    this.client = new AcpClient({
      ...host,
      emit: (rt, events) => this.emit(rt, events),
      elicitUrl: (gen, p) => this.auth.device.elicitUrl(gen, p),
      elicitationComplete: () => {},
      v2Outcome: (rt, outcome) => this.turns.v2Outcome(rt, outcome),
      v1PromptResult: (rt) => this.turns.v1PromptResult(rt),
    });
    this.turns = new AcpTurns({
      ...host,
      label: opts.label,
      sink,
      agentCaps: () => this.agentCaps,
      emit: (rt, events) => this.emit(rt, events),
      mapError: (err, what) => this.mapError(err, what),
      cancelGraceMs: opts.cancelGraceMs,
    });
  }

  /* ------------------------------------------------------------------ info and process (the shell) */

  capabilities(): Capabilities {
    const sc = this.agentCaps.sessionCapabilities ?? {};
    return {
      // `session/fork` (unstable ACP) copies a whole session; there is no per-message fork.
      fork: this.canFork(),
      forkMessages: false,
      revert: false,
      diff: false,
      compact: false,
      models: false,
      share: false,
      history: true,
      abort: true,
      rename: true,
      delete: Boolean(sc.delete),
      search: true,
      directories: true,
      // Images when the agent takes them (`promptCapabilities.image`); other files as embedded
      // resources (`embeddedContext`) or, as every agent must accept, resource links.
      attachments: { images: this.agentCaps.promptCapabilities?.image === true, files: true },
      // `@` mentions: `rg --files` in the session's directory; a picked file goes as a resource link.
      mentions: { search: "workspace", carry: "file" },
      interrupts: { permission: true, question: false, input: false },
    };
  }

  info(): Backend {
    return this.shell.info();
  }

  /** The agent's stderr tail (and the supervisor's own notes). */
  logs(): string[] {
    return this.shell.logs();
  }

  /** The pid of the agent process (tests kill it on purpose). */
  get pid(): number | undefined {
    return this.shell.pid;
  }

  async start(): Promise<void> {
    await this.shell.start();
  }

  async stop(): Promise<void> {
    this.interrupts.expire(() => true, CANCELLED);
    await this.shell.stop();
  }

  /** Restarts the agent process (after a login, or when it is wedged); sessions reattach on their next prompt. */
  /* ------------------------------------------------------------------ handshake and authentication */

  private async handshake(conn: AcpLink, gen: number) {
    const init = await conn.initialize({
      client: { name: "switchboard", title: "Switchboard", version: this.opts.version ?? "0.1.0" },
      forceV1: this.opts.acpVersion === 1,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    this.agentCaps = init.agentCapabilities;
    this.agentInfo = init.agentInfo;
    this.version = conn.version;
    await this.auth.check(conn, gen, init.raw, this.agentInfo?.name, {
      canClose: !!this.agentCaps.sessionCapabilities?.close,
    });
    const agent = [this.agentInfo?.name, this.agentInfo?.version].filter(Boolean).join(" ") || "the agent";
    this.shell.proc.note(
      `ACP v${init.protocolVersion} agreed with ${agent}${this.opts.acpVersion === 1 ? " (v2 turned off in the config)" : ""}`,
    );
    log.info("ACP agent ready", {
      backend: this.id,
      agent: this.agentInfo?.name,
      version: this.agentInfo?.version,
      // the ACP version agreed (./link.ts: v2 where the agent offers it, unless `acpVersion: 1`)
      protocolVersion: init.protocolVersion,
      generation: gen,
      ...(this.auth.blocked ? { auth: "required" } : {}),
    });
  }

  forget(): void {
    this.auth.forget();
  }

  /** Settings → *Sign in*: a device-code login, whose link and code show on the backend's methods. */
  async signIn(methodId: string): Promise<void> {
    const { conn, gen } = await this.shell.proc.whenReady();
    this.auth.signIn(conn, gen, methodId);
  }

  /** Settings → *Run in terminal*: a terminal login, with the agent's environment and directory. */
  terminalLogin(methodId: string): TerminalLogin {
    return { ...this.auth.terminalLogin(methodId), env: { ...this.auth.env }, cwd: this.kept.defaultCwd };
  }

  async setCredentials(methodId: string, vars: Record<string, string>): Promise<void> {
    this.auth.setCredentials(methodId, vars);
    this.shell.proc.restart();
  }

  private mapError(err: unknown, what: string): ApiError {
    return this.auth.mapError(err, what, (help) => this.shell.setStatus("auth-required", help));
  }

  private async call<T>(what: string, fn: (c: Conn) => Promise<T>): Promise<T> {
    const c = await this.shell.proc.whenReady();
    try {
      const r = await withTimeout(fn(c), REQUEST_TIMEOUT_MS, what);
      // a call that worked shows the agent has what it needs, unless it said itself that it is logged out
      if (this.shell.status === "auth-required" && !this.auth.reportedLoggedOut) {
        this.auth.blocked = undefined;
        this.shell.setStatus("ready");
      }
      return r;
    } catch (err) {
      throw this.mapError(err, what);
    }
  }

  /* ------------------------------------------------------------------ events */

  private emit(rt: Runtime, events: TimelineEvent[]) {
    this.kept.records.publish(rt.id, events);
  }

  private emitTo(sessionId: string, events: TimelineEvent[]) {
    const rt = this.sessions.known(sessionId);
    if (rt) this.emit(rt, events);
  }

  /* ------------------------------------------------------------------ sessions */

  async listSessions(q: {
    search?: string;
    limit: number;
    cursor?: string;
  }): Promise<{ items: Session[]; nextCursor?: string }> {
    return this.sessions.list(q, (err) =>
      log.warn("session/list failed", { backend: this.id, error: describeError(err) }),
    );
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    const cwd = await resolveSessionDirectory(input.directory, this.kept.defaultCwd, this.opts);
    if (this.auth.reportedLoggedOut && this.auth.blocked) throw ApiError.down(this.auth.blocked);
    const res =
      this.auth.takeSpare(this.shell.proc.current?.gen, cwd) ??
      (await this.call("create a session", (c) => c.conn.newSession(cwd)));
    const now = Date.now();
    const session: Session = {
      id: res.sessionId,
      backendId: this.id,
      title: input.title ?? DEFAULT_TITLE,
      directory: cwd,
      createdAt: now,
      updatedAt: now,
      status: "idle",
    };
    const rt = this.sessions.create(session, cwd, {
      liveGen: this.shell.proc.current?.gen ?? 0,
      titleLocked: Boolean(input.title),
    });
    this.sessions.register(rt);
    this.emit(rt, applySessionSetup(rt.norm, res));
    this.sessions.persist(rt, { messages: [], todos: [] });
    return this.sessions.sessionOf(rt);
  }

  async getSession(sessionId: string): Promise<Session> {
    return this.sessions.sessionOf(await this.sessions.get(sessionId));
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    const rt = await this.sessions.get(sessionId);
    this.emit(rt, renameSession(rt.norm, title, Date.now()));
    this.sessions.persist(rt);
    return this.sessions.sessionOf(rt);
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!this.agentCaps.sessionCapabilities?.delete)
      throw ApiError.conflict(`${this.opts.label} cannot delete sessions`);
    const rt = await this.sessions.get(sessionId);
    await this.call("delete the session", (c) => c.conn.deleteSession(rt.agentId));
    this.sessions.forget(rt);
    this.kept.records.forget(rt.id);
    this.kept.transcripts.delete(rt.id);
  }

  /** `sessionCapabilities.fork` is in ACP's unstable schema only. */
  private canFork(): boolean {
    const sc = this.agentCaps.sessionCapabilities as { fork?: unknown } | null | undefined;
    return sc?.fork !== undefined && sc.fork !== null;
  }

  /**
   * `session/fork` where the agent advertises it: a new agent session with the whole context of this
   * one. ACP has no per-message fork, so a message id is accepted only when it is the last message
   * (the same thing). The console shows the fork with a copy of the transcript it had.
   */
  async fork(sessionId: string, messageId?: string): Promise<Session> {
    if (!this.canFork()) throw ApiError.conflict(`${this.opts.label} cannot fork sessions`);
    const rt = await this.sessions.get(sessionId);
    const transcript = this.sessions.transcriptOf(rt) ?? { messages: [], todos: [] };
    if (messageId !== undefined) {
      if (!transcript.messages.some((m) => m.id === messageId))
        throw ApiError.notFound(`Unknown message: ${messageId}`);
      if (transcript.messages.at(-1)?.id !== messageId)
        throw ApiError.conflict(`${this.opts.label} can fork only a whole session, not from an earlier message`);
    }
    if (isBusy(rt)) throw ApiError.conflict("Wait for the running turn to end before forking");
    await this.sessions.attach(rt);
    const res = await this.call("fork the session", (c) => c.conn.fork(rt.agentId, rt.cwd));
    // Agents may replay the history into the new session (opencode acp does, like session/load):
    // the console shows its own copy instead, so the replayed turns are dropped; commands, modes and
    // the like still apply.
    await drainIncoming();
    this.sessions.dropEarly(res.sessionId, (n) =>
      REPLAYED_UPDATES.has(String((n.update as { sessionUpdate?: unknown } | null)?.sessionUpdate)),
    );
    const now = Date.now();
    const usage = rt.norm.usage;
    const session: Session = {
      id: res.sessionId,
      backendId: this.id,
      title: `${rt.norm.session.title} (fork)`,
      directory: rt.cwd,
      createdAt: now,
      updatedAt: now,
      status: "idle",
      ...(usage ? { usage } : {}),
    };
    const fork = this.sessions.create(session, rt.cwd, { liveGen: this.shell.proc.current?.gen ?? 0 });
    this.sessions.register(fork);
    this.emit(fork, applySessionSetup(fork.norm, res));
    this.sessions.persist(fork, structuredClone(transcript));
    return this.sessions.sessionOf(fork);
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    const rt = await this.sessions.get(sessionId);
    const t = this.sessions.transcriptOf(rt);
    return {
      session: this.sessions.sessionOf(rt),
      ...firstPage(t?.messages ?? []),
      interrupts: this.interrupts.list(rt.id),
      todos: t?.todos ?? [],
    };
  }

  /** Pages through the transcript the console keeps (the hub's state, else the store). */
  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    const rt = await this.sessions.get(sessionId);
    return pageMessages(this.sessions.transcriptOf(rt)?.messages ?? [], q);
  }

  /** Changes a session option (mode, model, config option) through the agent. */
  async setSessionOption(sessionId: string, id: string, value: string | boolean): Promise<Session> {
    const rt = await this.sessions.get(sessionId);
    const opt = rt.norm.session.settings?.options.find((o) => o.id === id);
    if (!opt) throw ApiError.notFound(`Unknown session option: ${id}`);
    if (opt.type === "select" && (typeof value !== "string" || !opt.choices.some((c) => c.value === value)))
      throw ApiError.badRequest(`Not a choice of ${opt.name}: ${String(value)}`);
    if (opt.type === "boolean" && typeof value !== "boolean")
      throw ApiError.badRequest(`${opt.name} takes true or false`);
    await this.sessions.attach(rt);
    if (opt.source === "mode") {
      await this.call("switch the mode", (c) => c.conn.setMode(rt.agentId, String(value)));
      this.emit(
        rt,
        applyUpdate(rt.norm, { sessionUpdate: "current_mode_update", currentModeId: String(value) }, Date.now()),
      );
    } else {
      const res = await this.call("change the option", (c) => c.conn.setConfigOption(rt.agentId, id, value));
      this.emit(rt, applySessionSetup(rt.norm, res));
    }
    this.sessions.persist(rt);
    return this.sessions.sessionOf(rt);
  }

  /* ------------------------------------------------------------------ turns (./turns.ts) and permissions (./client.ts) */

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    await this.turns.prompt(await this.sessions.get(sessionId), body);
  }

  async abort(sessionId: string): Promise<void> {
    await this.turns.abort(await this.sessions.get(sessionId));
  }

  pendingInterrupts() {
    return this.interrupts.list();
  }

  async answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    this.client.answerInterrupt(sessionId, interruptId, answer);
  }
}
