import "server-only";
import type { CreateSessionBody, InterruptAnswer, ModelInfo, PromptBody } from "@/lib/api";
import type {
  Backend,
  BackendStatus,
  Capabilities,
  Interrupt,
  Message,
  ModelRef,
  Session,
  TimelineEvent,
} from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { LiveStore } from "../../store/store";
import { InterruptBook } from "../shared/interrupts";
import { FIRST_PAGE_MESSAGES, pageMessages } from "../shared/session-list";
import { TranscriptStore } from "../shared/transcripts";
import type { BackendAdapter, EventSink, LoadedSession } from "../types";
import { fetchAgentCard, OPENCODE_METHODS } from "./card";
import { A2aConnection, authFetch, isAuthError, mapA2aError, rpcFailure } from "./client";
import { historyWindow } from "./listings";
import type { Profile } from "./normalize";
import { cursorTime, withTimes } from "./history-times";
import { OpencodeOps } from "./opencode";
import { PendingRequests } from "./pending-requests";
import { isBusy } from "../shared/turn-lifecycle";
import { A2aSessions, DEFAULT_TITLE, type Runtime } from "./sessions";
import { A2aTurns } from "./turns";

export interface A2aAdapterOptions {
  id: string;
  label: string;
  /** The agent's URL: its base (the card is at `.well-known/agent-card.json`) or its card's URL. */
  url: string;
  /** Bearer token; kept on the server, never in `info()`. */
  token?: string;
  store: LiveStore;
  source?: "env" | "store";
  /** How often a ready agent's card is read again to notice it went away (default 10 s). */
  healthMs?: number;
}

const HEALTH_MS = 10_000;
const CONNECT_WAIT_MS = 15_000;

/**
 * A2A agents (docs/backends/a2a.md): any A2A 0.3 agent over JSON-RPC with `@a2a-js/sdk`, and the
 * opencode-a2a profile detected from its card. The card is read at start (and shown in the
 * backend's details); the bearer token stays here. Sessions are A2A contexts kept by the console
 * (../shared/transcripts.ts) — or, for opencode-a2a, OpenCode sessions listed and paged through its
 * extension methods. Turns are in ./turns.ts, interrupts on ../shared/interrupts.ts.
 */
export class A2aAdapter implements BackendAdapter {
  readonly id: string;
  private status: BackendStatus = "connecting";
  private error: string | undefined;
  private conn: A2aConnection | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private waiters: (() => void)[] = [];
  private transcripts: TranscriptStore;
  private sessions: A2aSessions;
  private interrupts: InterruptBook<void>;
  private turns: A2aTurns;
  private requests: PendingRequests;

  constructor(
    private opts: A2aAdapterOptions,
    private sink: EventSink,
  ) {
    this.id = opts.id;
    this.transcripts = new TranscriptStore(opts.store, opts.id);
    this.sessions = new A2aSessions({
      backendId: opts.id,
      transcripts: this.transcripts,
      sink,
      profile: () => this.profile(),
    });
    this.interrupts = new InterruptBook<void>({ idPrefix: "a2a", emit: (sid, events) => this.emitTo(sid, events) });
    this.turns = new A2aTurns({
      backendId: opts.id,
      label: opts.label,
      sink,
      sessions: this.sessions,
      interrupts: this.interrupts,
      connection: () => this.connection(),
      current: () => this.conn,
      emit: (rt, events) => this.emit(rt, events),
      authFailed: () => this.setStatus("auth-required", this.authMessage()),
      unreachable: (err) => this.lostContact(err),
      resync: (rt) => this.resync(rt),
      refreshInterrupts: () => this.refreshInterrupts(),
      interruptOf: (requestId) => this.requests.interruptOf(requestId),
      rememberRequest: (requestId, interruptId) => this.requests.remember(requestId, interruptId),
      stopped: () => this.stopped,
    });
    this.requests = new PendingRequests({
      sessions: this.sessions,
      interrupts: this.interrupts,
      runtime: (sessionId) => this.runtime(sessionId),
      notice: (rt, text) => this.turns.notice(rt, text),
    });
  }

  /* ------------------------------------------------------------------ info */

  private profile(): Profile {
    if (this.conn) return this.conn.profile.kind;
    return this.opts.store.getMeta(`a2a-profile:${this.id}`) === "opencode" ? "opencode" : "generic";
  }

  private ops(): OpencodeOps | undefined {
    return this.conn && this.conn.profile.kind === "opencode" ? new OpencodeOps(this.conn, this.id) : undefined;
  }

  capabilities(): Capabilities {
    const opencode = this.profile() === "opencode";
    const ops = this.ops();
    return {
      fork: false,
      revert: false,
      diff: false,
      compact: false,
      models: opencode && (ops?.can(OPENCODE_METHODS.models) ?? true),
      share: false,
      history: true,
      abort: true,
      rename: true,
      // Sessions the console keeps can be forgotten; opencode-a2a has no way to delete its own.
      delete: !opencode,
      search: true,
      directories: false,
      // File parts (raw bytes with their media type).
      attachments: { images: true, files: true },
      interrupts: { permission: opencode, question: opencode, input: !opencode },
    };
  }

  info(): Backend {
    const card = this.conn?.card;
    return {
      id: this.id,
      kind: "a2a",
      label: this.opts.label,
      status: this.status,
      ...(this.error ? { error: this.error } : {}),
      capabilities: this.capabilities(),
      location: locationOf(this.opts.url),
      ...(card?.version ? { version: card.version } : {}),
      ...(this.opts.source ? { source: this.opts.source } : {}),
      ...(this.conn ? { agent: this.conn.summary() } : {}),
    };
  }

  private setStatus(status: BackendStatus, error?: string) {
    if (this.status === status && this.error === error) return;
    this.status = status;
    this.error = error;
    this.sink.backendChanged(this.info());
    if (status === "ready") for (const w of this.waiters.splice(0)) w();
  }

  private authMessage(): string {
    return this.opts.token
      ? `${this.opts.label} refused the token (HTTP 401). Check the token in this backend's settings.`
      : `${this.opts.label} needs a token (HTTP 401). Add one in this backend's settings.`;
  }

  /* ------------------------------------------------------------------ connection */

  async start(): Promise<void> {
    void this.connectLoop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.requests.stop();
    for (const rt of this.sessions.all()) rt.turn?.ac.abort();
    this.interrupts.expire(() => true, undefined, "cancelled");
  }

  /** Reads the card and checks the token; then re-reads the card now and then to notice the agent going away. */
  private async connectLoop(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      if (this.conn && this.status === "ready") {
        await this.nap(this.opts.healthMs ?? HEALTH_MS);
        if (this.stopped) return;
        try {
          await fetchAgentCard(this.opts.url, authFetch(this.opts.token));
          continue;
        } catch (err) {
          this.lostContact(err);
        }
      }
      try {
        const c = await A2aConnection.open(this.opts.url, this.opts.token);
        await c.checkToken();
        this.conn = c;
        this.opts.store.setMeta(`a2a-profile:${this.id}`, c.profile.kind);
        attempt = 0;
        log.info("A2A agent ready", {
          backend: this.id,
          agent: c.card.name,
          version: c.card.version,
          profile: c.profile.kind,
        });
        this.setStatus("ready");
        if (c.profile.kind === "opencode") void this.refreshInterrupts().catch(() => undefined);
      } catch (err) {
        if (this.stopped) return;
        const auth = isAuthError(err);
        this.setStatus(
          auth ? "auth-required" : "down",
          auth ? this.authMessage() : mapA2aError(err, "be reached", this.opts.label).message,
        );
        await this.nap(auth ? 30_000 : Math.min(15_000, 500 * 2 ** attempt++));
      }
    }
  }

  private nap(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(r, ms);
      this.wake = () => {
        clearTimeout(t);
        r();
      };
    });
  }

  /** A call could not reach the agent: say so and reconnect now. */
  private lostContact(err: unknown) {
    if (this.status === "ready") this.setStatus("down", mapA2aError(err, "be reached", this.opts.label).message);
    this.wake?.();
  }

  /** The connection once the agent is ready (waiting a little while it (re)connects). */
  private async connection(): Promise<A2aConnection> {
    if (this.conn && this.status === "ready") return this.conn;
    if (this.status === "auth-required") throw ApiError.upstream(this.error ?? this.authMessage());
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, CONNECT_WAIT_MS);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
    if (this.conn && this.status === "ready") return this.conn;
    throw ApiError.down(this.error ?? `${this.opts.label} is not reachable`);
  }

  /** A call to the agent, its errors as the console's (and the backend's status kept true). */
  private async call<T>(what: string, fn: (c: A2aConnection) => Promise<T>): Promise<T> {
    const c = await this.connection();
    try {
      return await fn(c);
    } catch (err) {
      if (isAuthError(err)) this.setStatus("auth-required", this.authMessage());
      else if (!rpcFailure(err)) this.lostContact(err);
      throw mapA2aError(err, what, this.opts.label);
    }
  }

  /* ------------------------------------------------------------------ events */

  private emit(rt: Runtime, events: TimelineEvent[]) {
    this.sessions.publish(rt.id, events);
  }

  private emitTo(sessionId: string, events: TimelineEvent[]) {
    this.sessions.publish(sessionId, events);
  }

  /* ------------------------------------------------------------------ sessions */

  private exists = async (ocSession: string): Promise<Session | undefined> => {
    const ops = this.ops();
    if (!ops) return undefined;
    try {
      await ops.exists(ocSession);
    } catch (err) {
      if (rpcFailure(err)?.type === "SESSION_NOT_FOUND") return undefined;
      throw mapA2aError(err, "read the session", this.opts.label);
    }
    // Its title and times as the agent lists them (the sidebar may not have listed it in this run yet).
    const listed = (await ops.sessions().catch(() => [])).find((s) => s.id === ocSession);
    if (listed) return listed;
    const now = Date.now();
    return { id: ocSession, backendId: this.id, title: DEFAULT_TITLE, createdAt: now, updatedAt: now, status: "idle" };
  };

  private runtime(sessionId: string): Promise<Runtime> {
    return this.sessions.get(sessionId, this.exists);
  }

  async listSessions(q: {
    search?: string;
    limit: number;
    cursor?: string;
  }): Promise<{ items: Session[]; nextCursor?: string }> {
    const ops = this.status === "ready" ? this.ops() : undefined;
    if (ops?.can(OPENCODE_METHODS.sessions)) {
      try {
        this.sessions.listed = new Map((await ops.sessions()).map((s) => [s.id, s]));
      } catch (err) {
        log.warn("opencode.sessions.list failed; listing the kept sessions", {
          backend: this.id,
          error: describeError(err),
        });
      }
    }
    return this.sessions.list(q);
  }

  async createSession(input: CreateSessionBody): Promise<Session> {
    if (input.directory)
      throw ApiError.badRequest(`${this.opts.label} runs in its own workspace; a session directory cannot be chosen`);
    const rt = this.sessions.create(input.title);
    return this.sessions.sessionOf(rt);
  }

  async getSession(sessionId: string): Promise<Session> {
    return this.sessions.sessionOf(await this.runtime(sessionId));
  }

  async renameSession(sessionId: string, title: string): Promise<Session> {
    const rt = await this.runtime(sessionId);
    rt.session = { ...rt.session, title, updatedAt: Date.now() };
    rt.titleLocked = true;
    const session = this.sessions.sessionOf(rt);
    this.emit(rt, [{ type: "session.updated", session }]);
    this.sessions.persist(rt);
    return session;
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (this.profile() === "opencode") throw ApiError.conflict(`${this.opts.label} cannot delete sessions`);
    const rt = await this.runtime(sessionId);
    if (isBusy(rt)) await this.turns.abort(rt);
    this.interrupts.expire((p) => p.sessionId === rt.id, undefined, "cancelled");
    this.sessions.forget(rt);
  }

  async loadSession(sessionId: string): Promise<LoadedSession> {
    const rt = await this.runtime(sessionId);
    const kept = this.sessions.messagesOf(rt);
    let messages: Message[] = kept;
    let olderCursor: string | undefined;
    const ops = this.status === "ready" ? this.ops() : undefined;
    if (ops && rt.ocSession) {
      try {
        const page = await ops.history(rt.ocSession, rt.id, { limit: FIRST_PAGE_MESSAGES }, []);
        messages = historyWindow(withTimes(page.items, rt.session.createdAt), kept);
        olderCursor = page.nextCursor;
      } catch (err) {
        if (rpcFailure(err)?.type === "SESSION_NOT_FOUND" && kept.length === 0)
          throw ApiError.notFound(`Unknown session: ${sessionId}`);
        log.warn("could not read the session's history; showing the kept transcript", {
          backend: this.id,
          error: describeError(err),
        });
      }
    }
    if (messages !== kept) this.sessions.recordLoaded(rt, messages);
    return {
      session: this.sessions.sessionOf(rt),
      messages,
      interrupts: this.interrupts.list(rt.id),
      todos: [],
      ...(olderCursor ? { olderCursor } : {}),
    };
  }

  async loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }> {
    const rt = await this.runtime(sessionId);
    if (this.profile() === "opencode" && rt.ocSession) {
      const kept = this.sessions.messagesOf(rt);
      const page = await this.call("read the history", async (c) =>
        new OpencodeOps(c, this.id).history(
          rt.ocSession!,
          rt.id,
          { limit: q.limit, ...(q.before ? { before: q.before } : {}) },
          [],
        ),
      );
      const base = q.before ? (cursorTime(q.before) ?? rt.session.createdAt) : rt.session.createdAt;
      const items = historyWindow(withTimes(page.items, base - page.items.length - 1), kept).filter((m) =>
        page.items.some((p) => p.id === m.id),
      );
      return { items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    }
    return pageMessages(this.sessions.messagesOf(rt), q);
  }

  /** opencode-a2a: the hub's view of the session made equal to the agent's history. */
  private async resync(rt: Runtime): Promise<void> {
    const fresh = await this.loadSession(rt.id);
    this.sink.reconcile(this.id, rt.id, fresh);
    this.sessions.recordLoaded(rt, fresh.messages);
  }

  /* ------------------------------------------------------------------ turns */

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    const rt = await this.runtime(sessionId);
    try {
      await this.turns.start(rt, body);
    } catch (err) {
      throw mapA2aError(err, "run the prompt", this.opts.label);
    }
  }

  async abort(sessionId: string): Promise<void> {
    await this.turns.abort(await this.runtime(sessionId));
  }

  async models(): Promise<{ items: ModelInfo[]; default?: ModelRef }> {
    if (this.profile() !== "opencode") throw ApiError.conflict(`${this.opts.label} offers no model choice`);
    return this.call("list its models", (c) => new OpencodeOps(c, this.id).models());
  }

  /* ------------------------------------------------------------------ interrupts */

  pendingInterrupts(): Interrupt[] {
    return this.interrupts.list();
  }

  async answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    const p = this.interrupts.take(sessionId, interruptId);
    const rt = await this.runtime(p.sessionId);
    if (p.interrupt.kind === "input") {
      if ("dismiss" in answer) return this.turns.abort(rt);
      if (!("text" in answer) || !answer.text.trim())
        throw ApiError.badRequest(
          "The agent asks for input: answer with {text} (or {dismiss: true} to cancel the task)",
        );
      // An `auth-required` answer is a secret: it reaches the agent, never the store, an export or a share.
      try {
        return await this.turns.start(
          rt,
          { parts: [{ type: "text", text: answer.text }] },
          { sensitive: p.interrupt.input?.sensitive === true },
        );
      } catch (err) {
        throw mapA2aError(err, "send the answer", this.opts.label);
      }
    }
    const requestId = p.key;
    if (!requestId) throw ApiError.conflict("This request cannot be answered any more");
    const outcome = await this.call("send the answer", async (c) => {
      try {
        return await new OpencodeOps(c, this.id).answer(p.interrupt, requestId, answer);
      } catch (err) {
        const type = rpcFailure(err)?.type;
        if (type === "INTERRUPT_REQUEST_EXPIRED") this.requests.expired(rt, interruptId);
        else if (type === "INTERRUPT_REQUEST_NOT_FOUND")
          this.interrupts.settle(interruptId, "resolved-elsewhere", undefined);
        throw err;
      }
    });
    this.interrupts.settle(interruptId, outcome, undefined);
    // Answered while no stream follows the session (recovered after a reconnect): follow its history.
    if (!isBusy(rt)) void this.turns.follow(rt);
  }

  /** opencode-a2a: the pending permissions and questions as the agent lists them (./pending-requests.ts). */
  async refreshInterrupts(): Promise<void> {
    const ops = this.status === "ready" ? this.ops() : undefined;
    if (!ops) return;
    return this.requests.refresh(ops);
  }
}

function locationOf(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    return u.toString();
  } catch {
    return url;
  }
}
