import "server-only";
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { CreateSessionBody, InterruptAnswer, PromptBody } from "@/lib/api";
import type {
  Backend,
  BackendStatus,
  Capabilities,
  FileChange,
  FileDiff,
  Interrupt,
  Message,
  MessageInfo,
  ModelRef,
  Session,
  SessionOption,
  Todo,
  TimelineEvent,
} from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { Store } from "../../store/store";
import type { SupervisedProcess } from "../../processes/supervisor";
import { AgentProcess } from "../shared/agent-process";
import { resolveSessionDirectory } from "../shared/files";
import { ndjsonFraming } from "../shared/framing";
import { InterruptBook } from "../shared/interrupts";
import { JsonRpcError, JsonRpcPeer } from "../shared/json-rpc";
import { pageMessages, pageSessions } from "../shared/session-list";
import { TranscriptStore } from "../shared/transcripts";
import { arr, isObj, obj, str } from "../shared/values";
import type { BackendAdapter, EventSink, LoadedSession, ModelInfo } from "../types";
import {
  applyOpalEvent,
  beginTurn,
  endTurn,
  generatedTitle,
  historyMessages,
  historyTodos,
  notice,
  tasksTodos,
  type OpalTurn,
} from "./normalize";
import { OPAL_REQUESTS, replyFor, requestInterrupt, type OpalReply, type OpalRequest } from "./requests";

export interface OpalAdapterOptions {
  id: string;
  label: string;
  /** `[opal-server, ...args]`. */
  command: string[];
  env?: Record<string, string>;
  /** The server's working directory and the default directory of new sessions. */
  cwd?: string;
  workspace: string;
  store: Store;
  source?: "env" | "store";
  restart?: { initialMs?: number; maxMs?: number };
  readyTimeoutMs?: number;
  /** How long Opal may ignore `agent/abort` before the turn is ended here (default 5 s). */
  abortGraceMs?: number;
  /** Health check: `opal/ping` every `intervalMs` (default 15 s); no answer within `timeoutMs` (default 10 s) and the server is killed and restarted. */
  health?: { intervalMs?: number; timeoutMs?: number };
}

type AuthProviders = NonNullable<Backend["auth"]>["providers"];

const THINKING_LEVELS = ["off", "low", "medium", "high", "max"] as const;
const DETACHED = "left:";
/** The record of a session deleted here: Opal's `session/delete` never finds its files (quirk 2), so its list keeps it. */
const DELETED = "deleted:";

interface Child {
  id: string;
  parentId: string;
  title: string;
  createdAt: number;
  /** The parent's `sub_agent` call that runs it. */
  callId: string;
  turn?: OpalTurn;
  state: SessionState;
}

interface Runtime {
  /** The console's id (Opal's own for sessions it made; a new one for a branch). */
  id: string;
  opalId: string;
  directory: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  /** The process generation the session was started or resumed in. */
  gen?: number;
  attaching?: Promise<void>;
  turn?: OpalTurn;
  /** The user message of the running turn. */
  userId?: string;
  /** The assistant message a crash ended (a notice follows when Opal is back). */
  crashedMessageId?: string;
  abortTimer?: ReturnType<typeof setTimeout>;
  model?: string;
  thinking?: string;
  /** Sub-agents by Opal's `sub_session_id`. */
  children: Map<string, Child>;
  forkedFrom?: { sessionId: string; messageId?: string };
  /** Left by a branch: the path the console recorded before it; the Opal session went on in `left`. */
  left?: string;
  /** The title was made here from the first prompt: Opal's generated title replaces it. */
  autoTitle?: boolean;
  /** Prompts Opal queued (`message_queued`) and has not applied yet. */
  queued: string[];
}

const newId = () => randomBytes(8).toString("hex");

/**
 * Opal (`opal-server`, docs/backends/opal.md) on the shared blocks: the server runs under the
 * console's supervisor (../shared/agent-process.ts), spoken to with JSON-RPC over NDJSON
 * (../shared/json-rpc.ts, ../shared/framing.ts); its `client/*` requests wait in the interrupt
 * book (../shared/interrupts.ts). `normalize.ts` maps the events, `requests.ts` the requests.
 *
 * Opal persists its sessions (resumed with `session/start {session_id}` in every new process); the
 * console also keeps its own record of what it showed (../shared/transcripts.ts): message ids stay
 * stable, stopped and crashed turns stay marked, sub-agents' timelines (which Opal does not keep)
 * and the path a branch left stay visible. Sessions the console has no record of are read from
 * `session/history`.
 */
export class OpalAdapter implements BackendAdapter {
  readonly id: string;
  private proc: AgentProcess<JsonRpcPeer>;
  private status: BackendStatus = "connecting";
  private error: string | undefined;
  private version: string | undefined;
  private authNote: string | undefined;
  private loggingIn = false;
  /** An `auth/poll` is in flight: Opal's RPC loop answers nothing else until it returns. */
  private polling = false;
  /** Requests that hold Opal's RPC loop (compaction): the health check waits for them. */
  private blocking = 0;
  /** Don't start the device flow (an API key is being set instead). */
  private keyFlow = false;
  private providers: AuthProviders | undefined;
  /** Tool calls that took a sensitive input: their diffs (which would show it) are never recorded. */
  private sensitiveCalls = new Set<string>();
  private healthTimer: ReturnType<typeof setInterval> | undefined;
  private runtimes = new Map<string, Runtime>();
  private byOpal = new Map<string, string>();
  private interrupts: InterruptBook<OpalReply>;
  private transcripts: TranscriptStore;
  private defaultCwd: string;

  constructor(
    private opts: OpalAdapterOptions,
    private sink: EventSink,
  ) {
    this.id = opts.id;
    this.defaultCwd = path.resolve(opts.cwd ?? opts.workspace);
    this.transcripts = new TranscriptStore(opts.store, opts.id);
    // A sub-agent's interrupt is shown in its own session and in its parent's (its owner).
    this.interrupts = new InterruptBook<OpalReply>({
      idPrefix: "opal",
      emit: (sid, events) => this.publishWithOwner(sid, events),
    });
    this.proc = new AgentProcess<JsonRpcPeer>({
      name: `${opts.id} (opal-server)`,
      label: opts.label,
      command: opts.command,
      cwd: this.defaultCwd,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.restart ? { restart: opts.restart } : {}),
      ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
      handshakeName: "its handshake (opal/version, auth/status)",
      connect: (p) => this.connect(p),
      handshake: (peer) => this.handshake(peer),
      close: (peer) => peer.close("the opal-server process ended"),
      onStatus: (status, error) => this.setStatus(status, error),
      onReady: (_live, notice) => notice && this.announceRestart(notice),
      onExit: (exit, turnError) => this.onExit(exit.generation, turnError),
    });
  }

  /* ------------------------------------------------------------------ info */

  capabilities(): Capabilities {
    return {
      fork: true,
      forkMessages: true,
      revert: false,
      diff: true,
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
      todos: true,
      children: true,
      interrupts: { permission: true, question: true, input: true },
    };
  }

  info(): Backend {
    const masked = this.opts.env ? Object.fromEntries(Object.keys(this.opts.env).map((k) => [k, "***"])) : undefined;
    return {
      id: this.id,
      kind: "opal",
      label: this.opts.label,
      status: this.status,
      ...(this.error ? { error: this.error } : {}),
      capabilities: this.capabilities(),
      location: this.opts.command.join(" "),
      ...(this.version ? { version: this.version } : {}),
      ...(this.opts.source ? { source: this.opts.source } : {}),
      config: {
        command: this.opts.command,
        ...(masked ? { env: masked } : {}),
        ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}),
      },
      ...(this.providers ? { auth: { providers: this.providers } } : {}),
      process: this.proc.processInfo(),
    };
  }

  logs(): string[] {
    return this.proc.logs();
  }

  private setStatus(status: BackendStatus, error?: string) {
    if (status === "ready" && this.authNote) {
      status = "auth-required";
      error = this.authNote;
    }
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.sink.backendChanged(this.info());
  }

  /* ------------------------------------------------------------------ process */

  async start(): Promise<void> {
    this.proc.start();
    const every = this.opts.health?.intervalMs ?? 15_000;
    this.healthTimer ??= setInterval(() => void this.healthCheck(), every);
    this.healthTimer.unref?.();
  }

  /**
   * `opal/ping`: a server that does not answer is hung (its RPC loop is one process) and is killed;
   * the supervisor restarts it. Skipped while a request legitimately holds the loop (`auth/poll`,
   * `session/compact`).
   */
  private async healthCheck() {
    const c = this.proc.current;
    if (!c || this.polling || this.blocking > 0 || c.conn.isClosed) return;
    try {
      await c.conn.request("opal/ping", {}, { timeoutMs: this.opts.health?.timeoutMs ?? 10_000 });
    } catch (err) {
      const now = this.proc.current;
      if (now?.gen !== c.gen || c.conn.isClosed || this.polling || this.blocking > 0) return;
      log.warn("opal-server did not answer opal/ping: killing it (the supervisor restarts it)", {
        backend: this.id,
        error: describeError(err),
      });
      this.proc.kill("SIGKILL");
    }
  }

  async stop(): Promise<void> {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = undefined;
    this.interrupts.expire(() => true, { error: "The console stopped" });
    for (const rt of this.runtimes.values()) if (rt.abortTimer) clearTimeout(rt.abortTimer);
    await this.proc.stop();
  }

  async restart(): Promise<void> {
    this.proc.restart();
  }

  /** For tests and the fault e2e: kill the live server; the supervisor restarts it. */
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
      framing: ndjsonFraming(),
      timeoutMs: 60_000,
      onSkip: (reason, preview) => this.proc.skipped(reason, preview),
    });
    peer.onNotification("agent/event", (params) => this.onEvent(gen, params));
    for (const m of OPAL_REQUESTS) peer.onRequest(m, (params, ctx) => this.onRequest(gen, m, params, ctx.signal));
    // The refactor branch's merged request (`client/request {kind}`), answered the same way.
    peer.onRequest("client/request", (params, ctx) => {
      const kind = str(obj(params).kind);
      const m: OpalRequest =
        kind === "confirm" ? "client/confirm" : kind === "input" ? "client/input" : "client/ask_user";
      return this.onRequest(gen, m, params, ctx.signal);
    });
    void peer.closed.then(() => this.proc.connectionClosed(gen));
    return peer;
  }

  private async handshake(peer: JsonRpcPeer) {
    const v = obj(await peer.request("opal/version", {}, { timeoutMs: 30_000 }));
    this.version =
      [str(v.server_version), str(v.protocol_version) ? `protocol ${str(v.protocol_version)}` : undefined]
        .filter(Boolean)
        .join(", ") || undefined;
    const auth = obj(await peer.request("auth/status", {}, { timeoutMs: 30_000 }));
    this.readProviders(auth);
    if (auth.authenticated === true) this.authNote = undefined;
    else if (this.keyFlow) this.authNote = this.loginNote();
    else if (!this.loggingIn) void this.deviceFlow(peer);
    for (const rt of this.runtimes.values()) rt.gen = undefined;
    log.info("Opal ready", { backend: this.id, version: this.version, authenticated: auth.authenticated === true });
  }

  /**
   * Opal's GitHub device flow: `auth/login` gives a code and a link, shown as the backend's
   * `auth-required` message; `auth/poll` waits until the user entered it, then the backend is ready.
   */
  private async deviceFlow(peer: JsonRpcPeer) {
    this.loggingIn = true;
    try {
      const login = obj(await peer.request("auth/login", {}, { timeoutMs: 30_000 }));
      const code = str(login.user_code) ?? "?";
      const uri = str(login.verification_uri) ?? "https://github.com/login/device";
      this.authNote = `Opal needs a GitHub Copilot login: open ${uri} and enter the code ${code}. This page updates when you are done.${this.keyProviders() ? ` Or set an API key for ${this.keyProviders()} below.` : ""}`;
      this.setStatus("ready");
      // `auth/poll` blocks Opal's whole RPC loop until the code is entered: nothing else is sent meanwhile (`call` answers at once).
      this.polling = true;
      try {
        await peer.request(
          "auth/poll",
          {
            device_code: str(login.device_code) ?? "",
            interval: typeof login.interval === "number" ? login.interval : 5,
          },
          { timeoutMs: 15 * 60_000 },
        );
      } finally {
        this.polling = false;
      }
      this.authNote = undefined;
      this.readProviders(obj(await peer.request("auth/status", {}, { timeoutMs: 30_000 }).catch(() => ({}))));
      this.setStatus("ready");
    } catch (err) {
      if (peer.isClosed) return;
      this.authNote = `Opal needs a GitHub Copilot login, and its device flow failed (${describeError(err)}). Restart the backend to try again.`;
      this.setStatus("ready");
    } finally {
      this.loggingIn = false;
    }
  }

  /** `auth/status`'s providers (Opal probes every source: Copilot's token, API keys in the environment or its settings). */
  private readProviders(auth: Record<string, unknown>) {
    const list = arr(obj(auth.auth).providers)
      .filter(isObj)
      .flatMap((p) => {
        const id = str(p.id);
        if (!id) return [];
        const envVar = str(p.env_var);
        return [
          {
            id,
            name: str(p.name) ?? id,
            method: p.method === "api_key" ? ("api_key" as const) : ("device_code" as const),
            ready: p.ready === true,
            ...(envVar ? { envVar } : {}),
          },
        ];
      });
    this.providers = list.length ? list : undefined;
  }

  private keyProviders(): string | undefined {
    const names = (this.providers ?? []).filter((p) => p.method === "api_key").map((p) => p.name);
    return names.length ? names.join(", ") : undefined;
  }

  private loginNote(): string {
    return `Opal has no model provider yet: set an API key${this.keyProviders() ? ` for ${this.keyProviders()}` : ""} below, or restart the backend for GitHub Copilot's device login.`;
  }

  /**
   * An API-key provider (`auth/set_key`: Opal keeps the key in its settings and its environment).
   * A device flow in progress holds Opal's RPC loop (`auth/poll`), so the server is restarted
   * without one first.
   */
  async setApiKey(provider: string, apiKey: string): Promise<void> {
    const held = this.polling || this.loggingIn ? this.proc.current?.gen : undefined;
    if (held !== undefined) {
      this.keyFlow = true;
      this.proc.restart();
    }
    try {
      let c = await this.proc.whenReady(60_000);
      // The server that held the loop is going: wait for its successor.
      for (
        const deadline = Date.now() + 60_000;
        held !== undefined && c.gen === held;
        c = await this.proc.whenReady(60_000)
      ) {
        if (Date.now() > deadline) throw ApiError.down(`${this.opts.label} did not come back after its restart`);
        await new Promise((r) => setTimeout(r, 100));
      }
      try {
        await c.conn.request("auth/set_key", { provider, api_key: apiKey }, { timeoutMs: 30_000 });
      } catch (err) {
        throw this.mapError(err, `set the ${provider} API key`);
      }
      const auth = obj(await c.conn.request("auth/status", {}, { timeoutMs: 30_000 }).catch(() => ({})));
      this.readProviders(auth);
      if (auth.authenticated === true || this.providers?.find((p) => p.id === provider)?.ready)
        this.authNote = undefined;
      this.setStatus("ready");
      this.sink.backendChanged(this.info());
    } finally {
      this.keyFlow = false;
    }
  }

  /** Opal's RPC loop is held by `auth/poll` until the login is done: a request now would wait for it. */
  private notWhilePolling() {
    if (this.polling)
      throw ApiError.down(
        `${this.opts.label} is waiting for its GitHub Copilot login to finish and answers nothing else until then (${this.authNote ?? "see Settings"})`,
      );
  }

  private async call(
    what: string,
    method: string,
    params: unknown,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>> {
    this.notWhilePolling();
    const c = await this.proc.whenReady();
    // Checked again in the tick that sends: a poll sent meanwhile would hold this request.
    this.notWhilePolling();
    try {
      return obj(await c.conn.request(method, params, timeoutMs ? { timeoutMs } : {}));
    } catch (err) {
      throw this.mapError(err, what);
    }
  }

  private mapError(err: unknown, what: string): Error {
    if (err instanceof ApiError) return err;
    if (err instanceof JsonRpcError) {
      const detail =
        err.data !== undefined ? ` (${typeof err.data === "string" ? err.data : JSON.stringify(err.data)})` : "";
      if (err.code === -32602)
        return ApiError.badRequest(`${this.opts.label} could not ${what}: ${err.message}${detail}`);
      return ApiError.upstream(`${this.opts.label} could not ${what}: ${err.message}${detail}`);
    }
    return ApiError.upstream(`${this.opts.label} could not ${what}: ${describeError(err)}`);
  }

  /** Starts or resumes the session in the live process (the only way to get its events). */
  private async attach(rt: Runtime): Promise<JsonRpcPeer> {
    if (rt.left) throw ApiError.conflict(`This path was left by a branch; it goes on in session ${rt.left}`);
    for (;;) {
      this.notWhilePolling();
      const c = await this.proc.whenReady();
      this.notWhilePolling();
      if (rt.gen === c.gen) return c.conn;
      if (rt.attaching) {
        await rt.attaching;
        continue;
      }
      rt.attaching = (async () => {
        // Opal does not restore a session's model on resume (it starts its default): the console's is given back.
        const model = rt.model
          ? { model: { id: rt.model, ...(rt.thinking ? { thinking_level: rt.thinking } : {}) } }
          : {};
        try {
          await c.conn.request("session/start", {
            session_id: rt.opalId,
            working_dir: rt.directory,
            features: { sub_agents: true },
            ...model,
          });
        } catch (err) {
          throw this.mapError(err, "resume the session");
        }
        rt.gen = c.gen;
        await this.readAgentState(rt, c.conn);
      })().finally(() => (rt.attaching = undefined));
      await rt.attaching;
    }
  }

  /**
   * `agent/state` after a (re)start: the model and thinking level Opal really runs. Where they are
   * not the session's, they are set again (`model/set` with the level: it resets thinking otherwise).
   */
  private async readAgentState(rt: Runtime, conn: JsonRpcPeer) {
    let st: Record<string, unknown>;
    try {
      st = obj(await conn.request("agent/state", { session_id: rt.opalId }, { timeoutMs: 30_000 }));
    } catch (err) {
      log.warn("agent/state failed", { backend: this.id, error: describeError(err) });
      return;
    }
    const m = obj(st.model);
    const id = str(m.id);
    const level = str(m.thinking_level);
    if (!rt.model) {
      if (id) rt.model = id;
      if (level) rt.thinking = level;
      return;
    }
    if (id === rt.model && (rt.thinking === undefined || level === rt.thinking)) return;
    try {
      await conn.request("model/set", {
        session_id: rt.opalId,
        model_id: rt.model,
        ...(rt.thinking ? { thinking_level: rt.thinking } : {}),
      });
    } catch (err) {
      log.warn("could not set the session's model again after a restart", {
        backend: this.id,
        error: describeError(err),
      });
    }
  }

  private onExit(gen: number, turnError: string) {
    this.interrupts.expire((p) => p.epoch === gen, { error: "the server exited" });
    for (const rt of this.runtimes.values()) {
      if (rt.gen !== gen) continue;
      rt.gen = undefined;
      if (!rt.turn) continue;
      rt.crashedMessageId = rt.turn.info.id;
      this.finishTurn(rt, endTurn(rt.turn, Date.now(), { error: { name: "AgentExited", message: turnError } }));
    }
  }

  private announceRestart(text: string) {
    for (const rt of this.runtimes.values()) {
      if (!rt.crashedMessageId) continue;
      this.publish(rt.id, [
        {
          type: "block.updated",
          messageId: rt.crashedMessageId,
          block: { id: `${rt.crashedMessageId}:restart`, kind: "notice", level: "info", text },
        },
      ]);
      rt.crashedMessageId = undefined;
      this.save(rt);
    }
  }

  /* ------------------------------------------------------------------ sessions */

  private publish(sessionId: string, events: TimelineEvent[]) {
    for (const e of events) this.sink.publish(this.id, sessionId, e);
  }

  private publishWithOwner(sessionId: string, events: TimelineEvent[]) {
    const child = this.findChild(sessionId);
    if (child) {
      child.state = applyAll(child.state, events);
      this.publish(child.parentId, events);
    }
    this.publish(sessionId, events);
  }

  private sessionOf(rt: Runtime): Session {
    return {
      id: rt.id,
      backendId: this.id,
      title: rt.title,
      directory: rt.directory,
      createdAt: rt.createdAt,
      updatedAt: rt.updatedAt,
      status: rt.turn ? (this.pendingFor(rt.id).length ? "waiting" : "busy") : "idle",
      ...(rt.forkedFrom ? { forkedFrom: rt.forkedFrom } : {}),
      ...(rt.model ? { model: { provider: "copilot", id: rt.model } } : {}),
      settings: { options: this.options(rt) },
    };
  }

  private childSession(c: Child): Session {
    return {
      id: c.id,
      backendId: this.id,
      title: c.title,
      parentId: c.parentId,
      createdAt: c.createdAt,
      updatedAt: c.createdAt,
      status: c.turn ? "busy" : "idle",
    };
  }

  /** Ends a sub-agent's open run (its parent's call ended, or the parent's run did): the child session goes idle. */
  private endChild(c: Child, error?: string) {
    if (!c.turn) return;
    const events = endTurn(c.turn, Date.now(), error ? { error: { name: "SubAgentFailed", message: error } } : {});
    c.turn = undefined;
    this.childPublish(c, [
      ...events,
      { type: "session.status", status: "idle" },
      { type: "session.updated", session: this.childSession(c) },
    ]);
    this.saveChild(c);
  }

  private register(rt: Runtime) {
    this.runtimes.set(rt.id, rt);
    if (!rt.left) this.byOpal.set(rt.opalId, rt.id);
  }

  /** The console's record of a session (messages as shown), or the live hub state. */
  private record(rt: Runtime): { messages: Message[]; todos: Todo[] } | undefined {
    const live = this.sink.sessionState?.(this.id, rt.id);
    if (live) return { messages: live.messages, todos: live.todos };
    const t = this.transcripts.get(rt.id);
    return t?.messages ? { messages: t.messages, todos: t.todos ?? [] } : undefined;
  }

  private save(rt: Runtime, messages?: Message[], todos?: Todo[]) {
    const rec = messages ? { messages, todos: todos ?? [] } : this.record(rt);
    this.transcripts.save({
      session: this.sessionOf(rt),
      ...(rec ? { messages: rec.messages, todos: rec.todos } : {}),
      agentSessionId: rt.left ? `${DETACHED}${rt.left}:${rt.opalId}` : rt.opalId,
    });
  }

  private saveChild(c: Child) {
    this.transcripts.save({ session: this.childSession(c), messages: c.state.messages, todos: [] });
  }

  /** A session known here, from the record or Opal's list; 404 otherwise. */
  private async known(sessionId: string): Promise<Runtime> {
    const rt = this.runtimes.get(sessionId);
    if (rt) return rt;
    const t = this.transcripts.get(sessionId);
    if (t?.agentSessionId?.startsWith(DELETED)) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    if (t && !t.session.parentId) {
      const agent = t.agentSessionId ?? t.session.id;
      const left = agent.startsWith(DETACHED) ? agent.slice(DETACHED.length).split(":") : undefined;
      const r: Runtime = {
        id: t.session.id,
        opalId: left ? left[1]! : agent,
        directory: t.session.directory ?? this.defaultCwd,
        title: t.session.title,
        createdAt: t.session.createdAt,
        updatedAt: t.session.updatedAt,
        children: new Map(),
        ...(t.session.forkedFrom ? { forkedFrom: t.session.forkedFrom } : {}),
        ...(t.session.model ? { model: t.session.model.id } : {}),
        ...(left ? { left: left[0]! } : {}),
        queued: [],
      };
      this.register(r);
      return r;
    }
    const listed = (await this.opalList()).find((s) => s.id === sessionId);
    if (!listed) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    const r: Runtime = {
      id: listed.id,
      opalId: listed.id,
      directory: this.defaultCwd,
      title: listed.title,
      createdAt: listed.updatedAt,
      updatedAt: listed.updatedAt,
      children: new Map(),
      queued: [],
    };
    this.register(r);
    return r;
  }

  private async opalList(): Promise<{ id: string; title: string; updatedAt: number }[]> {
    const res = await this.call("list its sessions", "session/list", {});
    return arr(res.sessions)
      .filter(isObj)
      .flatMap((s) => {
        const id = str(s.id);
        if (!id) return [];
        // `modified` has no timezone: Opal writes UTC.
        const t = Date.parse(`${str(s.modified) ?? ""}Z`);
        return [{ id, title: str(s.title) ?? "Untitled Opal session", updatedAt: Number.isFinite(t) ? t : 0 }];
      });
  }

  async listSessions(q: {
    search?: string;
    limit: number;
    cursor?: string;
  }): Promise<{ items: Session[]; nextCursor?: string }> {
    const out = new Map<string, Session>();
    const claimed = new Set<string>();
    for (const t of this.transcripts.list()) {
      if (t.session.parentId) continue;
      const agent = t.agentSessionId ?? t.session.id;
      if (agent.startsWith(DELETED)) {
        claimed.add(agent.slice(DELETED.length));
        continue;
      }
      out.set(t.session.id, t.session);
      if (!agent.startsWith(DETACHED)) claimed.add(agent);
      claimed.add(t.session.id);
    }
    for (const rt of this.runtimes.values()) out.set(rt.id, this.sessionOf(rt));
    try {
      // Opal's own list only while it runs: a down backend must not hold the sidebar up.
      for (const s of this.proc.current && !this.polling ? await this.opalList() : []) {
        if (claimed.has(s.id) || out.has(s.id)) continue;
        out.set(s.id, {
          id: s.id,
          backendId: this.id,
          title: s.title,
          directory: this.defaultCwd,
          createdAt: s.updatedAt,
          updatedAt: s.updatedAt,
          status: "idle",
        });
      }
    } catch (err) {
      log.warn("session/list failed; listing the console's own records", {
        backend: this.id,
        error: describeError(err),
      });
    }
    return pageSessions([...out.values()], q);
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    const directory = await resolveSessionDirectory(input.directory, this.defaultCwd, this.opts.workspace);
    this.notWhilePolling();
    const c = await this.proc.whenReady();
    this.notWhilePolling();
    let res: Record<string, unknown>;
    try {
      res = obj(
        await c.conn.request("session/start", {
          working_dir: directory,
          session: true,
          features: { sub_agents: true },
        }),
      );
    } catch (err) {
      throw this.mapError(err, "start a session");
    }
    const opalId = str(res.session_id);
    if (!opalId) throw ApiError.upstream(`${this.opts.label} started a session without an id`);
    const now = Date.now();
    const rt: Runtime = {
      id: opalId,
      opalId,
      directory,
      title: input.title?.trim() || "New session",
      createdAt: now,
      updatedAt: now,
      gen: c.gen,
      children: new Map(),
      queued: [],
    };
    if (obj(res.auth).status === "setup_required" && !this.authNote && !this.loggingIn && !this.keyFlow)
      void this.deviceFlow(c.conn);
    this.register(rt);
    this.save(rt, [], []);
    return this.sessionOf(rt);
  }

  async getSession(sessionId: string): Promise<Session> {
    const child = this.findChild(sessionId);
    if (child) return this.childSession(child);
    const t = this.transcripts.get(sessionId);
    if (t?.session.parentId) return t.session;
    return this.sessionOf(await this.known(sessionId));
  }

  /**
   * Delete: `session/delete`, then the console's record. Opal's delete looks for `<id>.jsonl` while
   * it stores `.dets` files (quirk 2), so its "Session not found" is expected: the session is
   * remembered as deleted here and left out of Opal's list from then on.
   */
  async deleteSession(sessionId: string): Promise<void> {
    if (this.isChild(sessionId))
      throw ApiError.conflict("An Opal sub-agent is part of its parent session: delete the parent");
    const rt = await this.known(sessionId);
    if (rt.turn) throw ApiError.conflict("Wait for the running turn to end before deleting the session");
    const shared = [...this.runtimes.values()].some((o) => o !== rt && o.opalId === rt.opalId && !o.left);
    if (!rt.left && !shared && this.proc.current && !this.polling) {
      try {
        await this.proc.current.conn.request("session/delete", { session_id: rt.opalId }, { timeoutMs: 30_000 });
      } catch (err) {
        if (!(err instanceof JsonRpcError && err.code === -32602)) throw this.mapError(err, "delete the session");
      }
    }
    this.interrupts.expire((p) => p.sessionId === rt.id || p.interrupt.ownerSessionId === rt.id, {
      error: "The session was deleted",
    });
    for (const c of rt.children.values()) this.transcripts.delete(c.id);
    for (const t of this.transcripts.list()) if (t.session.parentId === rt.id) this.transcripts.delete(t.session.id);
    this.runtimes.delete(rt.id);
    if (this.byOpal.get(rt.opalId) === rt.id) this.byOpal.delete(rt.opalId);
    this.transcripts.save({
      session: { ...this.sessionOf(rt), status: "idle" },
      messages: [],
      todos: [],
      agentSessionId: `${DELETED}${rt.opalId}`,
    });
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    const rt = await this.known(sessionId);
    rt.title = title;
    rt.updatedAt = Date.now();
    const s = this.sessionOf(rt);
    this.save(rt);
    this.publish(rt.id, [{ type: "session.updated", session: s }]);
    return s;
  }

  async children(sessionId: string): Promise<Session[]> {
    const rt = await this.known(sessionId);
    const out = new Map<string, Session>();
    for (const t of this.transcripts.list()) if (t.session.parentId === rt.id) out.set(t.session.id, t.session);
    for (const c of rt.children.values()) out.set(c.id, this.childSession(c));
    return [...out.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  private findChild(id: string): Child | undefined {
    for (const rt of this.runtimes.values()) for (const c of rt.children.values()) if (c.id === id) return c;
    return undefined;
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    const child = this.findChild(sessionId);
    if (child)
      return {
        session: this.childSession(child),
        messages: child.state.messages,
        interrupts: this.interrupts.list(child.id),
        todos: [],
      };
    const t = this.transcripts.get(sessionId);
    if (t?.session.parentId) return { session: t.session, messages: t.messages ?? [], interrupts: [], todos: [] };
    const rt = await this.known(sessionId);
    const all = await this.allMessages(rt);
    const page = pageMessages(all.messages, { limit: 200 });
    return {
      session: this.sessionOf(rt),
      messages: page.items,
      interrupts: this.pendingFor(rt.id),
      todos: all.todos,
      ...(page.nextCursor ? { olderCursor: page.nextCursor } : {}),
    };
  }

  private async allMessages(rt: Runtime): Promise<{ messages: Message[]; todos: Todo[] }> {
    const rec = this.record(rt);
    if (rec) return rec;
    const conn = await this.attach(rt);
    let hist: Record<string, unknown>;
    try {
      hist = obj(await conn.request("session/history", { session_id: rt.opalId }));
    } catch (err) {
      throw this.mapError(err, "read the history");
    }
    const messages = historyMessages(rt.id, hist.messages, rt.updatedAt);
    let todos = historyTodos(hist.messages);
    try {
      todos = tasksTodos(obj(await conn.request("tasks/list", { session_id: rt.opalId })).tasks);
    } catch {
      // tasks/list is missing on the refactor branch: the history's last tasks result stands
    }
    return { messages, todos: todos ?? [] };
  }

  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    const child = this.findChild(sessionId);
    if (child) return pageMessages(child.state.messages, q);
    const rt = await this.known(sessionId);
    return pageMessages((await this.allMessages(rt)).messages, q);
  }

  /* ------------------------------------------------------------------ turns */

  /** A sub-agent's session (live or recorded): shown, never prompted. */
  private isChild(sessionId: string): boolean {
    return Boolean(this.findChild(sessionId) ?? this.transcripts.get(sessionId)?.session.parentId);
  }

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    if (this.isChild(sessionId))
      throw ApiError.conflict(
        "An Opal sub-agent runs inside its parent's turn and takes no prompts of its own: prompt the parent session",
      );
    const rt = await this.known(sessionId);
    if (body.parts.some((p) => p.type !== "text"))
      throw ApiError.badRequest(`${this.opts.label} takes text prompts (Opal has no attachments)`);
    const text = body.parts.map((p) => (p.type === "text" ? p.text : "")).join("\n\n");
    await this.sink.openSession?.(this.id, rt.id);
    const conn = await this.attach(rt);
    if (body.model && body.model.id !== rt.model) await this.setModel(rt, body.model.id);
    const now = Date.now();
    const userId = `u_${newId()}`;
    const busy = Boolean(rt.turn);
    const events: TimelineEvent[] = [
      { type: "message.updated", message: { id: userId, sessionId: rt.id, role: "user", createdAt: now } },
      { type: "block.updated", messageId: userId, block: { id: `${userId}:t`, kind: "text", text } },
    ];
    if (!busy) {
      rt.queued = [];
      const begun = beginTurn(rt.id, `a_${newId()}`, now + 1, {
        parentId: userId,
        ...(rt.model ? { model: { provider: "copilot", id: rt.model } } : {}),
      });
      rt.turn = begun.turn;
      rt.userId = userId;
      events.push(...begun.events, { type: "session.status", status: "busy" });
    }
    if (rt.title === "New session") {
      rt.title = text.replace(/\s+/g, " ").trim().slice(0, 60) || rt.title;
      rt.autoTitle = true;
      events.push({ type: "session.updated", session: this.sessionOf(rt) });
    }
    this.publish(rt.id, events);
    let res: Record<string, unknown>;
    try {
      res = obj(await conn.request("agent/prompt", { session_id: rt.opalId, text }));
    } catch (err) {
      if (!busy && rt.turn)
        this.finishTurn(
          rt,
          endTurn(rt.turn, Date.now(), { error: { name: "PromptFailed", message: describeError(err) } }),
        );
      throw this.mapError(err, "take the prompt");
    }
    if (res.queued === true && busy && rt.turn)
      this.publish(rt.id, [
        notice(rt.turn, "info", "Queued: Opal adds this message when the model next stops calling tools."),
      ]);
  }

  private finishTurn(rt: Runtime, events: TimelineEvent[]) {
    if (rt.abortTimer) clearTimeout(rt.abortTimer);
    rt.abortTimer = undefined;
    this.interrupts.expire((p) => p.sessionId === rt.id || p.interrupt.ownerSessionId === rt.id, {
      error: "The run ended",
    });
    const turn = rt.turn;
    rt.turn = undefined;
    rt.queued = [];
    rt.updatedAt = Date.now();
    for (const c of rt.children.values())
      this.endChild(c, turn?.info.error ? `The parent's run ended: ${turn.info.error.message}` : undefined);
    const changes = turn ? this.turnChanges(turn) : [];
    const user = rt.userId ? this.record(rt)?.messages.find((m) => m.id === rt.userId) : undefined;
    const stamp: TimelineEvent[] =
      user && changes.length ? [{ type: "message.updated", message: { ...infoOf(user), diffs: changes } }] : [];
    rt.userId = undefined;
    this.publish(rt.id, [
      ...events,
      ...stamp,
      { type: "session.status", status: "idle" },
      { type: "session.updated", session: this.sessionOf(rt) },
    ]);
    this.save(rt);
  }

  /** A tool that was given a sensitive input keeps no diff: Opal's diff of the write holds the text. */
  private scrub(events: TimelineEvent[]): TimelineEvent[] {
    if (!this.sensitiveCalls.size) return events;
    return events.map((e) => {
      if (
        e.type !== "block.updated" ||
        e.block.kind !== "tool" ||
        !this.sensitiveCalls.has(e.block.callId) ||
        !e.block.diff
      )
        return e;
      const { diff: _d, ...block } = e.block;
      return { ...e, block };
    });
  }

  /** The files a run's edits and writes changed (Opal's `meta.diff`), merged per file: the turn's review. */
  private turnChanges(turn: OpalTurn): FileChange[] {
    return mergeDiffs([...turn.tools.values()].flatMap((b) => b.diff ?? [])).map(({ patch: _p, ...c }) => c);
  }

  /** The diffs of a turn (the user message's) or of the whole session, from the tool blocks the console recorded. */
  async diff(sessionId: string, messageId?: string): Promise<FileDiff[]> {
    const rt = await this.known(sessionId);
    const messages = (await this.allMessages(rt)).messages;
    let from = 0;
    let to = messages.length;
    if (messageId !== undefined) {
      from = messages.findIndex((m) => m.id === messageId);
      if (from < 0) throw ApiError.notFound(`Unknown message: ${messageId}`);
      const next = messages.findIndex((m, i) => i > from && m.role === "user");
      if (next >= 0) to = next;
    }
    return mergeDiffs(
      messages.slice(from, to).flatMap((m) => m.blocks.flatMap((b) => (b.kind === "tool" ? (b.diff ?? []) : []))),
    );
  }

  private onEvent(gen: number, params: unknown) {
    const cur = this.proc.current;
    if (cur && cur.gen !== gen) return;
    const p = obj(params);
    const consoleId = this.byOpal.get(str(p.session_id) ?? "");
    const rt = consoleId ? this.runtimes.get(consoleId) : undefined;
    if (!rt) return;
    try {
      const now = Date.now();
      const type = str(p.type);
      const title = type === "unknown" ? generatedTitle(str(p.raw) ?? "") : undefined;
      if (title) {
        // Opal names the session (during or just after a run): it replaces a title made from the prompt.
        if (rt.autoTitle && title !== rt.title) {
          rt.title = title;
          rt.autoTitle = false;
          this.publish(rt.id, [{ type: "session.updated", session: this.sessionOf(rt) }]);
          if (!rt.turn) this.save(rt);
        }
        return;
      }
      if (!rt.turn) {
        // A run the console did not start (another client's prompt, applied while idle): a new assistant message.
        if (type !== "agent_start" && type !== "message_applied") return;
        const begun = beginTurn(rt.id, `a_${newId()}`, now);
        rt.turn = begun.turn;
        this.publish(rt.id, [...begun.events, { type: "session.status", status: "busy" }]);
        if (type === "agent_start") return;
      }
      const turn = rt.turn;
      if (!turn) return;
      const r = applyOpalEvent(turn, p, now);
      if (r.sub) {
        this.onSubEvent(rt, r.sub.parentCallId, r.sub.subSessionId, r.sub.inner, now);
        return;
      }
      if (r.status)
        this.publish(rt.id, [
          { type: "session.status", status: this.pendingFor(rt.id).length ? "waiting" : "busy", detail: r.status },
        ]);
      if (r.queued) {
        // Opal applies every prompt (`message_applied`), also one sent while idle: only one it had queued is news.
        if (!r.queued.applied) rt.queued.push(r.queued.text);
        else {
          const at = rt.queued.indexOf(r.queued.text);
          if (at >= 0) {
            rt.queued.splice(at, 1);
            r.events.push(notice(turn, "info", `Opal took the queued message: ${r.queued.text.slice(0, 200)}`));
          }
        }
      }
      if (r.toolEnded?.tool === "sub_agent")
        for (const c of rt.children.values())
          if (c.callId === r.toolEnded.callId) this.endChild(c, r.toolEnded.ok ? undefined : r.toolEnded.error);
      r.events = this.scrub(r.events);
      if (r.ended) this.finishTurn(rt, r.events);
      else this.publish(rt.id, r.events);
    } catch (err) {
      log.warn("skipped an Opal event that could not be applied", { backend: this.id, error: describeError(err) });
    }
  }

  /** A sub-agent's event: its own child session (a nested timeline under the parent's tool card). */
  private onSubEvent(rt: Runtime, parentCallId: string, subId: string, inner: Record<string, unknown>, now: number) {
    let c = rt.children.get(subId);
    if (!c) {
      const tool = rt.turn?.tools.get(parentCallId);
      const title = str(inner.label) ?? str(tool?.input.label) ?? "Sub-agent";
      c = { id: subId, parentId: rt.id, title, createdAt: now, callId: parentCallId, state: emptyState };
      rt.children.set(subId, c);
      c.state = applyAll(c.state, [{ type: "session.updated", session: this.childSession(c) }]);
      if (tool && rt.turn) {
        const linked = { ...tool, childSessionId: subId };
        rt.turn.tools.set(parentCallId, linked);
        this.publish(rt.id, [{ type: "block.updated", messageId: rt.turn.info.id, block: linked }]);
      }
      const prompt = str(tool?.input.prompt);
      if (prompt) {
        const uid = `${subId}:prompt`;
        this.childPublish(c, [
          { type: "message.updated", message: { id: uid, sessionId: subId, role: "user", createdAt: now } },
          { type: "block.updated", messageId: uid, block: { id: `${uid}:t`, kind: "text", text: prompt } },
        ]);
      }
    }
    if (!c.turn) {
      const begun = beginTurn(subId, `${subId}:a${c.state.messages.length}`, now + 1);
      c.turn = begun.turn;
      this.childPublish(c, [...begun.events, { type: "session.status", status: "busy" }]);
    }
    const r = applyOpalEvent(c.turn, inner, now);
    r.events = this.scrub(r.events);
    if (r.ended) {
      c.turn = undefined;
      this.childPublish(c, [...r.events, { type: "session.status", status: "idle" }]);
      this.saveChild(c);
    } else this.childPublish(c, r.events);
  }

  private childPublish(c: Child, events: TimelineEvent[]) {
    c.state = applyAll(c.state, events);
    this.publish(c.id, events);
  }

  async abort(sessionId: string): Promise<void> {
    if (this.isChild(sessionId)) return;
    const rt = await this.known(sessionId);
    if (!rt.turn) return;
    const c = this.proc.current;
    if (c && rt.gen === c.gen)
      await c.conn
        .request("agent/abort", { session_id: rt.opalId })
        .catch((err: unknown) => log.warn("agent/abort failed", { backend: this.id, error: describeError(err) }));
    rt.abortTimer ??= setTimeout(() => {
      rt.abortTimer = undefined;
      if (rt.turn)
        this.finishTurn(
          rt,
          endTurn(rt.turn, Date.now(), {
            error: { name: "Aborted", message: "Stopped (Opal did not confirm the abort)", aborted: true },
          }),
        );
    }, this.opts.abortGraceMs ?? 5000);
    rt.abortTimer.unref?.();
  }

  async compact(sessionId: string): Promise<void> {
    const rt = await this.known(sessionId);
    if (rt.turn) throw ApiError.conflict("Wait for the running turn to end before compacting");
    const conn = await this.attach(rt);
    this.blocking++;
    try {
      // `keep_recent` is a token budget (quirk 1), not a message count, and Opal ignores one ≤ 0 (its
      // default keeps 20,000 tokens: nothing of a small session). 1 keeps only the newest message.
      await conn.request("session/compact", { session_id: rt.opalId, keep_recent: 1 }, { timeoutMs: 180_000 });
    } catch (err) {
      throw this.mapError(err, "compact the conversation");
    } finally {
      this.blocking--;
    }
    // The console's record keeps what was shown; the summary Opal now starts from is added after it.
    const hist = obj(await conn.request("session/history", { session_id: rt.opalId }).catch(() => ({})));
    const summary = historyMessages(rt.id, hist.messages, Date.now()).find((m) => m.summary);
    const now = Date.now();
    const id = `c_${newId()}`;
    this.publish(rt.id, [
      {
        type: "message.updated",
        message: { id, sessionId: rt.id, role: "assistant", createdAt: now, completedAt: now, summary: true },
      },
      {
        type: "block.updated",
        messageId: id,
        block: {
          id: `${id}:n`,
          kind: "notice",
          level: "info",
          code: "compaction",
          text: summary ? "Opal compacted the conversation" : "Opal had nothing to compact",
        },
      },
      ...(summary
        ? summary.blocks.map((b) => ({
            type: "block.updated" as const,
            messageId: id,
            block: { ...b, id: `${id}:${b.id}` },
          }))
        : []),
    ]);
    this.save(rt);
  }

  /**
   * A branch (`session/branch`): Opal moves the session's leaf back to the message, and the next
   * prompt forks its tree. The console shows it as a fork: a new console session on the same Opal
   * session holds the conversation up to the message; the old console session keeps the path as it
   * was shown (Opal does not serialize its tree) and can no longer be prompted.
   */
  async fork(sessionId: string, messageId?: string): Promise<Session> {
    const rt = await this.known(sessionId);
    if (rt.turn) throw ApiError.conflict("Wait for the running turn to end before branching");
    const conn = await this.attach(rt);
    const mine = (await this.allMessages(rt)).messages;
    const at = messageId === undefined ? mine.length - 1 : mine.findIndex((m) => m.id === messageId);
    if (at < 0 && messageId !== undefined) throw ApiError.notFound(`Unknown message: ${messageId}`);
    // Keep: before a user message, through an assistant message.
    const keep = messageId === undefined ? mine.length : mine[at]!.role === "user" ? at : at + 1;
    const kept = mine.slice(0, keep);
    const runs = kept.filter((m) => m.role === "user").length;
    let hist: Record<string, unknown>[];
    try {
      hist = arr(obj(await conn.request("session/history", { session_id: rt.opalId })).messages).filter(isObj);
    } catch (err) {
      throw this.mapError(err, "read the history");
    }
    // Opal's entry to branch at: the last message of run `runs` (before its next user message).
    const userIdx = hist.flatMap((m, i) => (m.role === "user" ? [i] : []));
    const entry = runs < userIdx.length ? userIdx[runs]! - 1 : hist.length - 1;
    const now = Date.now();
    const branch: Runtime = {
      id: newId() + newId(),
      opalId: rt.opalId,
      directory: rt.directory,
      title: `${rt.title} (branch)`,
      createdAt: now,
      updatedAt: now,
      children: new Map(),
      forkedFrom: { sessionId: rt.id, ...(messageId ? { messageId } : {}) },
      ...(rt.model ? { model: rt.model } : {}),
      ...(rt.thinking ? { thinking: rt.thinking } : {}),
      queued: [],
    };
    if (runs === 0 || entry < 0) {
      // Nothing to keep: a fresh Opal session in the same directory.
      const res = obj(
        await conn
          .request("session/start", { working_dir: rt.directory, session: true, features: { sub_agents: true } })
          .catch((err: unknown) => {
            throw this.mapError(err, "start a session");
          }),
      );
      branch.opalId = str(res.session_id) ?? "";
      branch.gen = this.proc.current?.gen;
    } else {
      if (entry < hist.length - 1) {
        try {
          await conn.request("session/branch", { session_id: rt.opalId, entry_id: str(hist[entry]!.id) ?? "" });
        } catch (err) {
          throw this.mapError(err, "branch the session");
        }
      }
      branch.gen = rt.gen;
      // The old console session keeps its record and hands the Opal session over.
      this.save(rt);
      rt.left = branch.id;
      this.byOpal.delete(rt.opalId);
      this.save(rt);
    }
    const copied = kept.map((m) => ({
      ...m,
      sessionId: branch.id,
      blocks: m.blocks.filter((b) => b.kind !== "tool" || b.status !== "running"),
    }));
    this.register(branch);
    this.save(branch, copied, []);
    return this.sessionOf(branch);
  }

  /* ------------------------------------------------------------------ models and options */

  private options(rt: Runtime): SessionOption[] {
    const thinking = rt.thinking ?? "off";
    return [
      ...(rt.model
        ? [
            {
              id: "model",
              name: "Model",
              category: "model",
              source: "config" as const,
              type: "select" as const,
              value: rt.model,
              choices: [{ value: rt.model, name: rt.model }],
            },
          ]
        : []),
      {
        id: "thinking",
        name: "Thinking",
        category: "thought_level",
        source: "config",
        type: "select",
        value: thinking,
        choices: THINKING_LEVELS.map((l) => ({ value: l, name: l[0]!.toUpperCase() + l.slice(1) })),
      },
    ];
  }

  private async setModel(rt: Runtime, modelId: string) {
    const conn = await this.attach(rt);
    let res: Record<string, unknown>;
    try {
      // model/set resets thinking to the request's level (off without one): the session's level goes with it.
      res = obj(
        await conn.request("model/set", {
          session_id: rt.opalId,
          model_id: modelId,
          ...(rt.thinking ? { thinking_level: rt.thinking } : {}),
        }),
      );
    } catch (err) {
      throw this.mapError(err, `switch to ${modelId}`);
    }
    rt.model = str(obj(res.model).id) ?? modelId;
    rt.thinking = str(obj(res.model).thinking_level) ?? rt.thinking;
  }

  async setSessionOption(sessionId: string, optionId: string, value: string | boolean): Promise<Session> {
    const rt = await this.known(sessionId);
    if (typeof value !== "string") throw ApiError.badRequest(`${optionId} takes one of its choices`);
    if (optionId === "model") await this.setModel(rt, value);
    else if (optionId === "thinking") {
      if (!(THINKING_LEVELS as readonly string[]).includes(value))
        throw ApiError.badRequest(`Not a thinking level: ${value}`);
      const conn = await this.attach(rt);
      const res = obj(
        await conn.request("thinking/set", { session_id: rt.opalId, level: value }).catch((err: unknown) => {
          throw this.mapError(err, "change the thinking level");
        }),
      );
      rt.thinking = str(res.thinking_level) ?? value;
    } else throw ApiError.notFound(`Unknown session option: ${optionId}`);
    const s = this.sessionOf(rt);
    this.save(rt);
    this.publish(rt.id, [{ type: "session.updated", session: s }]);
    return s;
  }

  async models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    const res = await this.call("list models", "models/list", {});
    const items = arr(res.models)
      .filter(isObj)
      .flatMap((m) => {
        const id = str(m.id);
        return id
          ? [{ provider: str(m.provider) ?? "copilot", providerLabel: "GitHub Copilot", id, label: str(m.name) ?? id }]
          : [];
      });
    return { items, ...(items[0] ? { default: { provider: items[0].provider, id: items[0].id } } : {}) };
  }

  /* ------------------------------------------------------------------ interrupts */

  pendingInterrupts(): Interrupt[] {
    return this.interrupts.list();
  }

  /** A `client/*` request: an interrupt at the session that asked (a sub-agent asks through its parent), answered whenever the user is ready. */
  private onRequest(gen: number, method: OpalRequest, params: unknown, signal: AbortSignal): Promise<unknown> {
    const p = obj(params);
    const asker = str(p.session_id) ?? "";
    const consoleId = this.byOpal.get(asker);
    let rt = consoleId ? this.runtimes.get(consoleId) : undefined;
    // A sub-agent asks with its own session id: the question belongs to its child session and is raised at the parent.
    const child = rt ? undefined : this.findChild(asker);
    if (child) rt = this.runtimes.get(child.parentId);
    if (!rt) return Promise.reject(JsonRpcError.invalidParams("Session not found"));
    const turn = child?.turn ?? rt.turn;
    const tool = turn ? [...turn.tools.values()].reverse().find((b) => b.status === "running") : undefined;
    const it: Interrupt = {
      id: this.interrupts.newId(),
      sessionId: child ? child.id : rt.id,
      ...(child ? { ownerSessionId: rt.id } : {}),
      createdAt: Date.now(),
      ...requestInterrupt(method, p),
      ...(tool ? { toolCallId: tool.callId } : {}),
      ...(turn ? { messageId: turn.info.id } : {}),
    };
    const owner = rt;
    return new Promise((resolve, reject) => {
      const respond = (r: OpalReply) => {
        if ("result" in r) resolve(r.result);
        else reject(new JsonRpcError(-32000, r.error));
        if (owner.turn && this.pendingFor(owner.id).length <= 1)
          this.publish(owner.id, [{ type: "session.status", status: "busy" }]);
      };
      const refuse = (message: string) => reject(new JsonRpcError(-32000, message));
      if (
        this.interrupts.raise({ sessionId: it.sessionId, interrupt: it, epoch: gen, respond, refuse }, [
          { type: "interrupt.requested", interrupt: it },
        ]).refused
      )
        return;
      this.publish(owner.id, [{ type: "session.status", status: "waiting" }]);
      signal.addEventListener(
        "abort",
        () => this.interrupts.expire((x) => x.interrupt.id === it.id, { error: "connection closed" }),
        { once: true },
      );
    });
  }

  /** Pending interrupts shown in a session: its own and its sub-agents'. */
  private pendingFor(sessionId: string): Interrupt[] {
    return this.interrupts.list().filter((i) => i.sessionId === sessionId || i.ownerSessionId === sessionId);
  }

  async answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    // Answered through the session that asked or the one that owns it (a sub-agent's parent).
    const asked = this.interrupts.get(interruptId);
    const p = this.interrupts.take(
      asked && asked.interrupt.ownerSessionId === sessionId ? asked.sessionId : sessionId,
      interruptId,
    );
    const { reply, outcome } = replyFor(p.interrupt, answer);
    if (p.interrupt.input?.sensitive && p.interrupt.toolCallId) this.sensitiveCalls.add(p.interrupt.toolCallId);
    this.interrupts.settle(interruptId, outcome, reply);
  }
}

/** A message's metadata (`message.updated` carries no blocks). */
function infoOf(m: Message): MessageInfo {
  const { blocks: _b, ...info } = m;
  return info;
}

/** Diffs of several edits merged per file: counts summed, patches concatenated, added if the first made it. */
function mergeDiffs(list: FileDiff[]): FileDiff[] {
  const byPath = new Map<string, FileDiff>();
  for (const d of list) {
    const prev = byPath.get(d.path);
    byPath.set(
      d.path,
      prev
        ? {
            path: d.path,
            status: prev.status === "added" ? "added" : d.status,
            additions: prev.additions + d.additions,
            deletions: prev.deletions + d.deletions,
            patch: prev.patch + d.patch,
          }
        : d,
    );
  }
  return [...byPath.values()];
}
