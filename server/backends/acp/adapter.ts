import "server-only";
import fs from "node:fs/promises";
import path from "node:path";
import {
  client,
  methods,
  ndJsonStream,
  RequestError,
  type AgentCapabilities,
  type AnyMessage,
  type ClientConnection,
  type ContentBlock,
  type NewSessionResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import {
  methods as unstableMethods,
  type ForkSessionRequest,
  type ForkSessionResponse,
} from "@agentclientprotocol/sdk/unstable";
import type { CreateSessionBody, InterruptAnswer, PromptBody, PromptPart } from "@/lib/api";
import type { Backend, BackendStatus, Capabilities, Message, MessageInfo, Session, TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { SupervisedProcess } from "../../processes/supervisor";
import type { Store } from "../../store/store";
import { AgentProcess, withTimeout } from "../shared/agent-process";
import { ConfinedPathError, confinePath, resolveSessionDirectory, textSlice } from "../shared/files";
import { ndjsonLines } from "../shared/framing";
import { InterruptBook } from "../shared/interrupts";
import { pageMessages } from "../shared/session-list";
import { TranscriptStore } from "../shared/transcripts";
import type { BackendAdapter, EventSink, LoadedSession } from "../types";
import { z } from "zod";
import { isTextMime } from "@/lib/attachments";
import {
  authHelp,
  describeAuthMethods,
  mergeCredentials,
  readAuthMethods,
  satisfiedMethod,
  shouldProbe,
  withKnownMethods,
  type AuthMethodInfo,
} from "./auth";
import { agentMessage, mapAcpError, rpcCode } from "./errors";
import {
  appendNotice,
  applySessionSetup,
  applyUpdate,
  beginTurn,
  endTurn,
  failTurn,
  markRejected,
  permissionRequest,
  renameSession,
} from "./normalize";
import {
  AcpSessions,
  DEFAULT_TITLE,
  REQUEST_TIMEOUT_MS,
  drainIncoming,
  type Conn,
  type Runtime,
  type Turn,
} from "./sessions";

export interface AcpAdapterOptions {
  id: string;
  label: string;
  /** `[command, ...args]` of the agent, e.g. `["copilot", "--acp", "--no-auto-update"]`. */
  command: string[];
  /** Extra environment for the agent (secrets welcome: never sent to the browser). */
  env?: Record<string, string>;
  /** The agent's working directory and the default directory of new sessions. */
  cwd?: string;
  /** The console's workspace root: session directories must stay inside it (or inside `cwd`). */
  workspace: string;
  store: Store;
  source?: "env" | "store";
  version?: string;
  restart?: { initialMs?: number; maxMs?: number };
  /** How long an agent may ignore `session/cancel` before the turn is ended locally (default 10 s). */
  cancelGraceMs?: number;
  /** How long a request waits for a (re)starting agent before answering 503 (default 45 s). */
  readyTimeoutMs?: number;
}

/** `session/update` kinds that carry conversation history (what a replay consists of). */
const REPLAYED_UPDATES = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
  "usage_update",
]);
const CANCEL_GRACE_MS = 10_000;
const CANCELLED: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

/**
 * ACP agent adapter (docs/backends/acp.md): the ACP mapping on the shared blocks — the agent process
 * and its connection (../shared/agent-process.ts), permission interrupts (../shared/interrupts.ts),
 * the console-kept transcript (../shared/transcripts.ts). Spoken to with `@agentclientprotocol/sdk`;
 * `normalize.ts` turns its updates into canonical events. Sessions, prompts (the turn runs in the
 * background), cancel, list/load/resume/fork where advertised, file reads and writes confined to
 * the session's directory.
 */
export class AcpAdapter implements BackendAdapter {
  readonly id: string;
  private proc: AgentProcess<ClientConnection>;
  private status: BackendStatus = "connecting";
  private error: string | undefined;
  private agentCaps: AgentCapabilities = {};
  private authMethods: AuthMethodInfo[] = [];
  /** The agent's environment: the config's `env` and the credentials entered in Settings. Read at every spawn. */
  private env: Record<string, string>;
  /** Why the agent cannot open a session (the post-handshake check, or a failed `authenticate`). */
  private authBlocked: string | undefined;
  /** The raw `initialize` result per process generation (the SDK's schema drops `env_var` methods' fields). */
  private rawInit = new Map<number, unknown>();
  /** The session the post-handshake check opened, handed to the first new session in its directory. */
  private spare: { gen: number; cwd: string; res: NewSessionResponse } | undefined;
  private agentInfo: { name?: string; title?: string | null; version?: string } | undefined;
  private sessions: AcpSessions;
  private interrupts: InterruptBook<RequestPermissionResponse>;
  private transcripts: TranscriptStore;
  private defaultCwd: string;

  constructor(
    private opts: AcpAdapterOptions,
    private sink: EventSink,
  ) {
    this.id = opts.id;
    this.defaultCwd = path.resolve(opts.cwd ?? opts.workspace);
    this.transcripts = new TranscriptStore(opts.store, opts.id);
    this.env = { ...(opts.env ?? {}), ...this.storedCredentials() };
    this.interrupts = new InterruptBook({
      idPrefix: "perm",
      emit: (sessionId, events) => this.emitTo(sessionId, events),
    });
    this.proc = new AgentProcess<ClientConnection>({
      name: `${opts.id} (${opts.command[0] ?? "?"})`,
      label: opts.label,
      command: opts.command,
      cwd: this.defaultCwd,
      // The same object, updated in place when credentials change: the supervisor reads it at each spawn.
      env: this.env,
      framing: ndjsonLines,
      ...(opts.restart ? { restart: opts.restart } : {}),
      ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
      handshakeName: "the ACP handshake",
      connect: (p) => this.connect(p),
      handshake: (conn, gen) => this.handshake(conn, gen),
      close: (conn) => conn.close(),
      onStatus: (status, error) =>
        status === "ready" && this.authBlocked
          ? this.setStatus("auth-required", this.authBlocked)
          : this.setStatus(status, error),
      onReady: (_live, notice) => notice && this.announceRestart(notice),
      onExit: (exit, turnError) => this.onExit(exit.generation, turnError),
    });
    this.sessions = new AcpSessions({
      backendId: opts.id,
      defaultCwd: this.defaultCwd,
      proc: this.proc,
      agentCaps: () => this.agentCaps,
      sink,
      transcripts: this.transcripts,
      emit: (rt, events) => this.emit(rt, events),
      mapError: (err, what) => this.mapError(err, what),
      call: (what, fn) => this.call(what, fn),
    });
  }

  /* ------------------------------------------------------------------ info */

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
    const masked = this.opts.env ? Object.fromEntries(Object.keys(this.opts.env).map((k) => [k, "***"])) : undefined;
    return {
      id: this.id,
      kind: "acp",
      label: this.opts.label,
      status: this.status,
      ...(this.error ? { error: this.error } : {}),
      capabilities: this.capabilities(),
      location: this.opts.command.join(" "),
      ...(this.agentInfo?.version ? { version: this.agentInfo.version } : {}),
      ...(this.opts.source ? { source: this.opts.source } : {}),
      config: {
        command: this.opts.command,
        ...(masked ? { env: masked } : {}),
        ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}),
      },
      ...(this.authMethods.length ? { authMethods: describeAuthMethods(this.authMethods, this.env) } : {}),
      process: this.proc.processInfo(),
    };
  }

  /** The agent's stderr tail (and the supervisor's own notes). */
  logs(): string[] {
    return this.proc.logs();
  }

  /** The pid of the agent process (tests kill it on purpose). */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  private setStatus(status: BackendStatus, error?: string) {
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.sink.backendChanged(this.info());
  }

  /* ------------------------------------------------------------------ process and connection */

  async start(): Promise<void> {
    this.proc.start();
  }

  async stop(): Promise<void> {
    this.interrupts.expire(() => true, CANCELLED);
    await this.proc.stop();
  }

  private connect(p: SupervisedProcess): ClientConnection {
    const gen = p.generation;
    const app = client({ name: "switchboard" })
      .onRequest(methods.client.session.requestPermission, (ctx) => this.onPermission(gen, ctx.params, ctx.signal))
      .onRequest(methods.client.fs.readTextFile, async (ctx) => ({
        content: await this.readTextFile(
          ctx.params.sessionId,
          ctx.params.path,
          ctx.params.line ?? undefined,
          ctx.params.limit ?? undefined,
        ),
      }))
      .onRequest(methods.client.fs.writeTextFile, async (ctx) => {
        await this.writeTextFile(ctx.params.sessionId, ctx.params.path, ctx.params.content);
        return {};
      })
      .onNotification(methods.client.session.update, (ctx) => this.onUpdate(gen, ctx.params));
    const stream = ndJsonStream(p.stdin, p.stdout);
    const tap = new TransformStream<AnyMessage, AnyMessage>({
      transform: (m, c) => {
        if (
          !this.rawInit.has(gen) &&
          "result" in m &&
          m.result &&
          typeof m.result === "object" &&
          "protocolVersion" in m.result
        )
          this.rawInit.set(gen, m.result);
        c.enqueue(m);
      },
    });
    const conn = app.connect({ writable: stream.writable, readable: stream.readable.pipeThrough(tap) });
    void conn.closed.then(() => this.proc.connectionClosed(gen));
    return conn;
  }

  private async handshake(conn: ClientConnection, gen: number) {
    const init = await withTimeout(
      conn.agent.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: "switchboard", title: "Switchboard", version: this.opts.version ?? "0.1.0" },
      }),
      REQUEST_TIMEOUT_MS,
      "initialize",
    );
    this.agentCaps = init.agentCapabilities ?? {};
    this.agentInfo = init.agentInfo ?? undefined;
    this.authMethods = withKnownMethods(readAuthMethods(this.rawInit.get(gen) ?? init), this.agentInfo?.name);
    this.rawInit.delete(gen);
    this.spare = undefined;
    this.authBlocked = await this.checkAuth(conn, gen);
    log.info("ACP agent ready", {
      backend: this.id,
      agent: this.agentInfo?.name,
      version: this.agentInfo?.version,
      generation: gen,
      ...(this.authBlocked ? { auth: "required" } : {}),
    });
  }

  /**
   * ACP authentication after `initialize` (docs/backends/acp.md#authentication): an `env_var` method
   * whose variables the agent has gets the `authenticate` call (when the agent advertised it); an
   * agent that advertises `env_var` methods and has none of them is asked for a session, which tells
   * whether it has credentials of its own (a login). Returns why it cannot open a session, if so.
   */
  private async checkAuth(conn: ClientConnection, gen: number): Promise<string | undefined> {
    const method = satisfiedMethod(this.authMethods, this.env);
    if (method) {
      if (method.origin !== "agent") return undefined;
      try {
        await withTimeout(
          conn.agent.request(methods.agent.authenticate, { methodId: method.id }),
          REQUEST_TIMEOUT_MS,
          "authenticate",
        );
        return undefined;
      } catch (err) {
        log.warn("ACP authenticate failed", { backend: this.id, method: method.id, error: agentMessage(err) });
        return `${method.name} failed: ${agentMessage(err)}. ${authHelp(this.authMethods)}`;
      }
    }
    if (!shouldProbe(this.authMethods, this.env)) return undefined;
    try {
      const res = await withTimeout(
        conn.agent.request(methods.agent.session.new, { cwd: this.defaultCwd, mcpServers: [] }),
        REQUEST_TIMEOUT_MS,
        "session/new",
      );
      this.spare = { gen, cwd: this.defaultCwd, res };
      return undefined;
    } catch (err) {
      let help: string | undefined;
      mapAcpError(err, "create a session", {
        label: this.opts.label,
        authMethods: this.authMethods,
        onAuthRequired: (h) => (help = h),
      });
      return help;
    }
  }

  /** Credentials entered in Settings for this backend (kept in the store, never sent to the browser). */
  private storedCredentials(): Record<string, string> {
    const raw = this.opts.store.getMeta(credentialsKey(this.id));
    if (!raw) return {};
    const r = z.record(z.string(), z.string()).safeParse(JSON.parse(raw));
    return r.success ? r.data : {};
  }

  forget(): void {
    if (this.opts.store.getMeta(credentialsKey(this.id)) !== undefined)
      this.opts.store.setMeta(credentialsKey(this.id), "{}");
  }

  async setCredentials(methodId: string, vars: Record<string, string>): Promise<void> {
    const method = this.authMethods.find((m) => m.id === methodId);
    if (!method) throw ApiError.notFound(`${this.opts.label} has no auth method ${methodId}`);
    if (method.type !== "env_var") throw ApiError.badRequest(`${method.name} takes no values from the console`);
    const unknown = Object.keys(vars).filter((k) => !method.vars.some((v) => v.name === k));
    if (unknown.length) throw ApiError.badRequest(`${method.name} does not use ${unknown.join(", ")}`);
    const creds = mergeCredentials(this.storedCredentials(), vars);
    this.opts.store.setMeta(credentialsKey(this.id), JSON.stringify(creds));
    // in place: the supervisor reads this object at the next spawn
    for (const k of Object.keys(vars)) delete this.env[k];
    Object.assign(this.env, this.opts.env ?? {}, creds);
    this.authBlocked = undefined;
    this.proc.restart();
  }

  /** The process of `gen` died: its permission requests are cancelled and its running turns fail. */
  private onExit(gen: number, turnError: string) {
    this.interrupts.expire((p) => p.epoch === gen, CANCELLED);
    for (const rt of this.sessions.all()) {
      const turn = rt.turn;
      if (turn && !turn.done && turn.gen === gen) {
        this.failRunningTurn(rt, turn, { name: "AgentExited", message: turnError });
        rt.crashedMessageId = turn.info.id;
      }
    }
  }

  private announceRestart(notice: string) {
    for (const rt of this.sessions.all()) {
      if (!rt.crashedMessageId) continue;
      this.emit(rt, appendNotice(rt.norm, rt.crashedMessageId, "info", notice));
      rt.crashedMessageId = undefined;
    }
  }

  private mapError(err: unknown, what: string): ApiError {
    return mapAcpError(err, what, {
      label: this.opts.label,
      authMethods: this.authMethods,
      onAuthRequired: (help) => this.setStatus("auth-required", help),
    });
  }

  private async call<T>(what: string, fn: (c: Conn) => Promise<T>): Promise<T> {
    const c = await this.proc.whenReady();
    try {
      const r = await withTimeout(fn(c), REQUEST_TIMEOUT_MS, what);
      if (this.status === "auth-required") {
        this.authBlocked = undefined;
        this.setStatus("ready");
      }
      return r;
    } catch (err) {
      throw this.mapError(err, what);
    }
  }

  /* ------------------------------------------------------------------ events */

  private emit(rt: Runtime, events: TimelineEvent[]) {
    for (const e of events) this.sink.publish(this.id, rt.id, e);
  }

  private emitTo(sessionId: string, events: TimelineEvent[]) {
    const rt = this.sessions.known(sessionId);
    if (rt) this.emit(rt, events);
  }

  private onUpdate(gen: number, params: SessionNotification) {
    const cur = this.proc.current;
    if (cur && cur.gen !== gen) return;
    try {
      const rt = this.sessions.ofAgent(params.sessionId);
      if (!rt) return this.sessions.keepEarly(params);
      if (rt.replay) {
        if (!rt.replay.discard) rt.replay.events.push(...applyUpdate(rt.replay.norm, params.update, Date.now()));
        return;
      }
      this.emit(rt, applyUpdate(rt.norm, params.update, Date.now()));
    } catch (err) {
      log.warn("skipped an ACP update that could not be applied", { backend: this.id, error: describeError(err) });
    }
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
    const cwd = await resolveSessionDirectory(input.directory, this.defaultCwd, this.opts.workspace);
    const spare = this.spare;
    this.spare = undefined;
    const res =
      spare && spare.gen === this.proc.current?.gen && spare.cwd === cwd
        ? spare.res
        : await this.call("create a session", (c) =>
            c.conn.agent.request(methods.agent.session.new, { cwd, mcpServers: [] }),
          );
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
      liveGen: this.proc.current?.gen ?? 0,
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
    await this.call("delete the session", (c) =>
      c.conn.agent.request(methods.agent.session.delete, { sessionId: rt.agentId }),
    );
    this.sessions.forget(rt);
    this.transcripts.delete(rt.id);
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
    if (rt.turn && !rt.turn.done) throw ApiError.conflict("Wait for the running turn to end before forking");
    await this.sessions.attach(rt);
    const params: ForkSessionRequest = { sessionId: rt.agentId, cwd: rt.cwd, mcpServers: [] };
    const res = await this.call("fork the session", (c) =>
      c.conn.agent.request<ForkSessionResponse>(unstableMethods.agent.session.fork, params),
    );
    // Agents may replay the history into the new session (opencode acp does, like session/load):
    // the console shows its own copy instead, so the replayed turns are dropped; commands, modes and
    // the like still apply.
    await drainIncoming();
    this.sessions.dropEarly(res.sessionId, (n) => REPLAYED_UPDATES.has(n.update.sessionUpdate));
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
    const fork = this.sessions.create(session, rt.cwd, { liveGen: this.proc.current?.gen ?? 0 });
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
      messages: t?.messages ?? [],
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

  pendingInterrupts() {
    return this.interrupts.list();
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
      await this.call("switch the mode", (c) =>
        c.conn.agent.request(methods.agent.session.setMode, { sessionId: rt.agentId, modeId: String(value) }),
      );
      this.emit(
        rt,
        applyUpdate(rt.norm, { sessionUpdate: "current_mode_update", currentModeId: String(value) }, Date.now()),
      );
    } else {
      const params =
        typeof value === "boolean"
          ? { sessionId: rt.agentId, configId: id, type: "boolean" as const, value }
          : { sessionId: rt.agentId, configId: id, value };
      const res = await this.call("change the option", (c) =>
        c.conn.agent.request(methods.agent.session.setConfigOption, params),
      );
      this.emit(rt, applySessionSetup(rt.norm, res));
    }
    this.sessions.persist(rt);
    return this.sessions.sessionOf(rt);
  }

  /* ------------------------------------------------------------------ turns */

  private toContent(parts: PromptPart[]): ContentBlock[] {
    const image = this.agentCaps.promptCapabilities?.image === true;
    return parts.map((p): ContentBlock => {
      if (p.type === "text") return { type: "text", text: p.text };
      const m = /^data:([^;,]+);base64,(.*)$/s.exec(p.url);
      if (m && image && p.mime.startsWith("image/")) return { type: "image", mimeType: m[1]!, data: m[2]! };
      // A file the user attached, embedded when the agent takes embedded context (its text for a
      // text file), a link otherwise.
      if (m && this.agentCaps.promptCapabilities?.embeddedContext === true) {
        const uri = `attachment:///${encodeURIComponent(p.filename ?? "file")}`;
        const mimeType = m[1]!;
        return isTextMime(mimeType)
          ? { type: "resource", resource: { uri, mimeType, text: Buffer.from(m[2]!, "base64").toString("utf8") } }
          : { type: "resource", resource: { uri, mimeType, blob: m[2]! } };
      }
      return { type: "resource_link", uri: p.url, name: p.filename ?? "file", mimeType: p.mime };
    });
  }

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    const rt = await this.sessions.get(sessionId);
    if (rt.turn && !rt.turn.done) {
      rt.queued.push(body);
      return;
    }
    // The hub materializes the turn (and the transcript kept from it) even when no browser watches.
    await this.sink.openSession?.(this.id, rt.id);
    const c = await this.sessions.attach(rt);
    this.startTurn(rt, c, body);
  }

  private startTurn(rt: Runtime, c: Conn, body: PromptBody) {
    const now = Date.now();
    const t = beginTurn(rt.norm, body.parts, now);
    const firstText = body.parts.find((p): p is Extract<PromptPart, { type: "text" }> => p.type === "text")?.text;
    const events = [...t.events, { type: "session.status", status: "busy" } as TimelineEvent];
    if (firstText && rt.norm.session.title === DEFAULT_TITLE) {
      // a provisional title until the agent names the session
      events.push(
        ...applyUpdate(
          rt.norm,
          { sessionUpdate: "session_info_update", title: firstText.replace(/\s+/g, " ").trim().slice(0, 80) },
          now,
        ),
      );
    }
    const info: MessageInfo = {
      id: t.assistantId,
      sessionId: rt.id,
      role: "assistant",
      createdAt: now + 1,
      ...(rt.norm.session.model ? { model: rt.norm.session.model } : {}),
    };
    const turn: Turn = { info, gen: c.gen, done: false };
    rt.turn = turn;
    this.emit(rt, events);
    this.sessions.persist(rt);
    c.conn.agent
      .request(methods.agent.session.prompt, { sessionId: rt.agentId, prompt: this.toContent(body.parts) })
      .then(async (result) => {
        await drainIncoming();
        this.finishTurn(rt, turn, result);
      })
      .catch(async (err: unknown) => {
        // A dying agent closes the connection before its exit is reported: wait for the exit so the
        // turn says what happened to the process.
        if (rpcCode(err) === undefined) await this.proc.waitExit(turn.gen, 3000);
        if (turn.done) return;
        const mapped = this.mapError(err, "run the prompt");
        this.failRunningTurn(rt, turn, {
          name: mapped.code === "backend_down" ? "AgentUnavailable" : "AgentError",
          message: mapped.message,
        });
      });
  }

  private endOfTurn(rt: Runtime, turn: Turn) {
    turn.done = true;
    if (turn.cancelTimer) clearTimeout(turn.cancelTimer);
    if (rt.turn === turn) rt.turn = undefined;
    this.interrupts.expire((p) => p.sessionId === rt.id, CANCELLED);
  }

  private finishTurn(rt: Runtime, turn: Turn, result: unknown) {
    if (turn.done) return;
    this.endOfTurn(rt, turn);
    this.emit(rt, [
      ...endTurn(rt.norm, turn.info.id, turn.info, result, Date.now()),
      { type: "session.status", status: "idle" },
    ]);
    this.sessions.persist(rt);
    this.next(rt);
  }

  private failRunningTurn(rt: Runtime, turn: Turn, error: { name: string; message: string }) {
    if (turn.done) return;
    this.endOfTurn(rt, turn);
    this.emit(rt, [
      ...failTurn(rt.norm, turn.info.id, turn.info, error, Date.now()),
      { type: "error", message: error.message, code: error.name },
      { type: "session.status", status: "idle" },
    ]);
    this.sessions.persist(rt);
    this.next(rt);
  }

  private next(rt: Runtime) {
    const body = rt.queued.shift();
    if (!body) return;
    this.sessions
      .attach(rt)
      .then((c) => this.startTurn(rt, c, body))
      .catch((err: unknown) => {
        this.emit(rt, [{ type: "error", message: this.mapError(err, "run the queued prompt").message }]);
        rt.queued.length = 0;
      });
  }

  async abort(sessionId: string): Promise<void> {
    const rt = await this.sessions.get(sessionId);
    rt.queued.length = 0;
    const turn = rt.turn;
    if (!turn || turn.done) return;
    // ACP: after session/cancel, pending permission requests are answered "cancelled".
    this.interrupts.expire((p) => p.sessionId === rt.id, CANCELLED);
    const c = this.proc.current;
    if (c && c.gen === turn.gen)
      await c.conn.agent.notify(methods.agent.session.cancel, { sessionId: rt.agentId }).catch(() => undefined);
    // An agent that ignores the cancel must not leave the session busy forever.
    turn.cancelTimer ??= setTimeout(() => {
      if (!turn.done) this.finishTurn(rt, turn, { stopReason: "cancelled" });
    }, this.opts.cancelGraceMs ?? CANCEL_GRACE_MS);
    turn.cancelTimer.unref?.();
  }

  /* ------------------------------------------------------------------ permissions */

  private onPermission(
    gen: number,
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const rt = this.sessions.ofAgent(params.sessionId);
    if (!rt || this.proc.stopping) return Promise.resolve(CANCELLED);
    // Request ids start at 0 and repeat after a restart: interrupt ids are our own.
    const id = this.interrupts.newId();
    const r = permissionRequest(rt.norm, params, id, Date.now());
    if (!r) {
      log.warn("permission request without usable options; answering cancelled", { backend: this.id });
      return Promise.resolve(CANCELLED);
    }
    return new Promise<RequestPermissionResponse>((resolve, reject) => {
      const refuse = (message: string) => reject(new Error(message));
      if (
        this.interrupts.raise(
          { sessionId: rt.id, interrupt: r.interrupt, epoch: gen, respond: resolve, refuse },
          r.events,
        ).refused
      )
        return;
      signal.addEventListener("abort", () => this.interrupts.settle(id, "cancelled", CANCELLED), { once: true });
    });
  }

  async answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    const p = this.interrupts.take(sessionId, interruptId);
    if ("dismiss" in answer) {
      this.interrupts.settle(interruptId, "cancelled", CANCELLED);
      return;
    }
    if (!("decision" in answer))
      throw ApiError.badRequest("A permission request is answered with {decision} or {dismiss: true}");
    const option = p.interrupt.permission?.options.find((o) => o.kind === answer.decision);
    if (!option) throw ApiError.badRequest(`This request offers no "${answer.decision}" option`);
    if (answer.message)
      log.info("ACP cannot pass a message with a permission answer; it is dropped", { backend: this.id });
    const rt = this.sessions.known(p.sessionId);
    if (rt && answer.decision === "reject" && p.interrupt.toolCallId) markRejected(rt.norm, p.interrupt.toolCallId);
    this.interrupts.settle(interruptId, answer.decision, { outcome: { outcome: "selected", optionId: option.id } });
  }

  /* ------------------------------------------------------------------ client-side fs */

  /** A path the agent may touch: absolute, and (after resolving symlinks) inside the session's directory. */
  private async confine(agentSessionId: string, p: string, forWrite: boolean): Promise<string> {
    const rt = this.sessions.ofAgent(agentSessionId);
    if (!rt) throw RequestError.sessionNotFound(agentSessionId);
    try {
      return await confinePath(rt.cwd, p, forWrite);
    } catch (err) {
      if (!(err instanceof ConfinedPathError)) throw err;
      throw err.reason === "not-found"
        ? RequestError.resourceNotFound(err.path)
        : RequestError.invalidParams({ path: p }, err.message);
    }
  }

  async readTextFile(agentSessionId: string, p: string, line?: number, limit?: number): Promise<string> {
    return textSlice(await fs.readFile(await this.confine(agentSessionId, p, false), "utf8"), line, limit);
  }

  async writeTextFile(agentSessionId: string, p: string, content: string): Promise<void> {
    await fs.writeFile(await this.confine(agentSessionId, p, true), content, "utf8");
  }

  /** Restarts the agent process (after a login, or when it is wedged); sessions reattach on their next prompt. */
  async restart(): Promise<void> {
    this.proc.restart();
  }

  /** For tests: wait until the agent is up. */
  async ready(timeoutMs?: number): Promise<void> {
    await this.proc.whenReady(timeoutMs);
  }

  /** For tests and the fault test: the live process is killed; the supervisor restarts it. */
  killProcess(signal: NodeJS.Signals = "SIGKILL"): void {
    this.proc.kill(signal);
  }
}

const credentialsKey = (backendId: string) => `acp-credentials:${backendId}`;
