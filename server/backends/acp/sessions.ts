import "server-only";
import type { AgentCapabilities } from "@agentclientprotocol/sdk";
import type { MessageInfo, Session, TimelineEvent } from "@/lib/model";
import { applyAll, emptyState } from "@/lib/timeline/reducer";
import { ApiError } from "../../errors";
import { withTimeout, type AgentProcess, type Incarnation } from "../shared/agent-process";
import { pageSessions } from "../shared/session-list";
import type { SessionRecords, Transcript } from "../shared/session-records";
import type { TranscriptStore } from "../shared/transcripts";
import { statusOf, type LiveTurn, type SessionRuntime } from "../shared/turn-lifecycle";
import type { EventSink } from "../types";
import { isAlreadyLoaded } from "./errors";
import type { AcpLink, AcpVersion } from "./link";
import {
  appendNotice,
  applySessionSetup,
  applyUpdate,
  endReplay,
  newSessionState,
  type AcpSessionState,
} from "./normalize";
import { applyV2Update, newV2State, type V2Applied, type V2State } from "./v2-updates";

export const DEFAULT_TITLE = "New session";
export const REQUEST_TIMEOUT_MS = 60_000;

export type Conn = Incarnation<AcpLink>;

export interface Turn extends LiveTurn {
  info: MessageInfo;
  gen: number;
}

/** What the adapter knows of one session: the normalizer and the running turn (the hub holds its state). */
export interface Runtime extends SessionRuntime<Turn> {
  /** The id the agent knows it by (differs only after re-creating a session on an agent without loadSession). */
  agentId: string;
  cwd: string;
  norm: AcpSessionState;
  /** ACP v2's per-session bookkeeping (blocks by the agent's message id, terminals, the foreground state). */
  v2: V2State;
  /** Process generation in which the agent has this session open (0: not attached). */
  liveGen: number;
  /** While `session/load` replays: the replay is collected here (or dropped when only re-attaching). */
  replay?: { norm: AcpSessionState; v2: V2State; events: TimelineEvent[]; discard: boolean };
  attaching?: Promise<void>;
}

export type { Transcript };

/** A `session/update` for a session not known yet, with the version of the connection it came on. */
export interface EarlyUpdate {
  sessionId: string;
  update: unknown;
  version: AcpVersion;
}

/** What the sessions need of their adapter. */
export interface AcpSessionsContext {
  backendId: string;
  defaultCwd: string;
  proc: AgentProcess<AcpLink>;
  agentCaps(): AgentCapabilities;
  sink: EventSink;
  transcripts: TranscriptStore;
  records: SessionRecords;
  emit(rt: Runtime, events: TimelineEvent[]): void;
  mapError(err: unknown, what: string): ApiError;
  call<T>(what: string, fn: (c: Conn) => Promise<T>): Promise<T>;
}

/**
 * The SDK resolves a request as soon as its response is read, but dispatches notifications through
 * a few promise hops: a `session/prompt` result can overtake the last `session/update`s that came
 * before it on the wire. Everything already read is handled once the microtask queue drains.
 */
export const drainIncoming = () => new Promise<void>((r) => setImmediate(() => setImmediate(r)));

/**
 * The ACP sessions the adapter knows: found by the console's id or the agent's, loaded on first use
 * (from the console-kept transcript, or replayed by `session/load` and kept), re-attached to each new
 * agent process (`session/resume`, `session/load` or a new agent session), and listed with the
 * agent's own `session/list`.
 */
export class AcpSessions {
  private runtimes = new Map<string, Runtime>();
  private byAgent = new Map<string, Runtime>();
  private loading = new Map<string, Promise<Runtime>>();
  /** Sessions the agent listed (cwd and title), for loading them later. */
  private listed = new Map<string, { cwd: string; title?: string; updatedAt?: number }>();
  /** Updates for sessions not known yet (e.g. sent before the `session/new` result). */
  private early: EarlyUpdate[] = [];

  constructor(private ctx: AcpSessionsContext) {}

  all(): IterableIterator<Runtime> {
    return this.runtimes.values();
  }
  known(sessionId: string): Runtime | undefined {
    return this.runtimes.get(sessionId);
  }
  ofAgent(agentSessionId: string): Runtime | undefined {
    return this.byAgent.get(agentSessionId);
  }

  /** Keeps an update for a session the adapter does not know yet (the newest 100). */
  keepEarly(n: EarlyUpdate) {
    this.early.push(n);
    if (this.early.length > 100) this.early.splice(0, this.early.length - 100);
  }

  /** Drops the kept updates of `agentSessionId` that `drop` matches. */
  dropEarly(agentSessionId: string, drop: (n: EarlyUpdate) => boolean) {
    this.early = this.early.filter((n) => n.sessionId !== agentSessionId || !drop(n));
  }

  register(rt: Runtime) {
    this.runtimes.set(rt.id, rt);
    this.byAgent.set(rt.agentId, rt);
    // Updates the agent sent before we knew the session (e.g. its slash commands after session/new).
    const early = this.early.filter((n) => n.sessionId === rt.agentId);
    if (early.length) {
      this.early = this.early.filter((n) => n.sessionId !== rt.agentId);
      for (const n of early) this.apply(rt, n.update, n.version);
    }
  }

  /**
   * One `session/update` of the session: into the replay being collected, or emitted. v2 updates go
   * through ./v2-updates.ts, whose outcome (the turn's end, the agent's error, a protocol error) is
   * returned for the turn to act on (not for a replay's).
   */
  apply(rt: Runtime, update: unknown, version: AcpVersion): V2Applied | undefined {
    const now = Date.now();
    const replay = rt.replay;
    if (replay) {
      if (replay.discard) return undefined;
      const events =
        version === 2
          ? applyV2Update(replay.norm, replay.v2, update, now).events
          : applyUpdate(replay.norm, update, now);
      replay.events.push(...events);
      return undefined;
    }
    if (version !== 2) {
      this.ctx.emit(rt, applyUpdate(rt.norm, update, now));
      return undefined;
    }
    const applied = applyV2Update(rt.norm, rt.v2, update, now);
    this.ctx.emit(rt, applied.events);
    return applied;
  }

  forget(rt: Runtime) {
    this.runtimes.delete(rt.id);
    this.byAgent.delete(rt.agentId);
    this.listed.delete(rt.id);
  }

  create(session: Session, cwd: string, opts: { agentId?: string; liveGen: number; titleLocked?: boolean }): Runtime {
    return {
      id: session.id,
      agentId: opts.agentId ?? session.id,
      cwd,
      norm: newSessionState(session, { titleLocked: opts.titleLocked ?? false }),
      v2: newV2State(),
      liveGen: opts.liveGen,
      queued: [],
    };
  }

  sessionOf(rt: Runtime): Session {
    return { ...rt.norm.session, status: statusOf(rt), ...(rt.norm.usage ? { usage: rt.norm.usage } : {}) };
  }

  /** The session's messages as the adapter emitted them (on top of what the console kept). */
  transcriptOf(rt: Runtime): Transcript | undefined {
    return this.ctx.records.transcript(rt.id);
  }

  /**
   * Keeps the session and its transcript (as emitted, or `transcript` when the adapter built one: a
   * replay, a fork, a new session) so a reload needs no replay.
   */
  persist(rt: Runtime, transcript?: Transcript) {
    if (transcript) this.ctx.records.seed(rt.id, { session: this.sessionOf(rt), ...transcript });
    else transcript = this.transcriptOf(rt);
    this.ctx.transcripts.save({ session: this.sessionOf(rt), ...(transcript ?? {}), agentSessionId: rt.agentId });
  }

  /** The runtime of a session, loading it (store, `session/load`) on first use; 404 when unknown. */
  get(sessionId: string): Promise<Runtime> {
    const rt = this.runtimes.get(sessionId);
    if (rt) return Promise.resolve(rt);
    const inflight = this.loading.get(sessionId);
    if (inflight) return inflight;
    const p = this.load(sessionId).finally(() => this.loading.delete(sessionId));
    this.loading.set(sessionId, p);
    return p;
  }

  private async load(sessionId: string): Promise<Runtime> {
    const { proc, transcripts } = this.ctx;
    const stored = transcripts.get(sessionId);
    if (!stored && !proc.current) await proc.whenReady();
    let meta: { session: Session; cwd: string } | undefined = stored
      ? { session: stored.session, cwd: stored.session.directory ?? this.ctx.defaultCwd }
      : this.listedMeta(sessionId);
    if (!meta && this.ctx.agentCaps().sessionCapabilities?.list) {
      await this.refreshListed().catch(() => undefined);
      meta = this.listedMeta(sessionId);
    }
    if (!meta) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    // Whether the agent replays history is known only once it is up (unless the console has the transcript).
    if (!stored?.messages) await proc.whenReady();
    const titleLocked = Boolean(
      stored && stored.session.title !== DEFAULT_TITLE && stored.session.title !== this.listed.get(sessionId)?.title,
    );
    const agentId = stored?.agentSessionId;
    const rt = this.create(meta.session, meta.cwd, { liveGen: 0, titleLocked, ...(agentId ? { agentId } : {}) });
    if (stored?.messages || this.ctx.agentCaps().loadSession !== true) {
      // The console keeps this transcript (the agent cannot replay it, or need not).
      this.register(rt);
      return rt;
    }
    // The agent replays the history: collect it, materialize it once and keep it.
    const replayFrom = Math.min(meta.session.createdAt, meta.session.updatedAt - 3_600_000);
    rt.replay = {
      norm: newSessionState(rt.norm.session, { titleLocked, replayFrom }),
      v2: newV2State(),
      events: [],
      discard: false,
    };
    this.register(rt);
    let transcript: Transcript = { messages: [], todos: [] };
    try {
      const c = await proc.whenReady();
      const res = await withTimeout(c.conn.load(rt.agentId, rt.cwd), REQUEST_TIMEOUT_MS, "session/load");
      await drainIncoming();
      const replay = rt.replay;
      const events = [...replay.events, ...endReplay(replay.norm), ...applySessionSetup(replay.norm, res)];
      rt.norm = replay.norm;
      const state = applyAll({ ...emptyState, session: { ...rt.norm.session, status: "idle" } }, events);
      transcript = { messages: state.messages, todos: state.todos };
      rt.liveGen = c.gen;
    } catch (err) {
      const cur = proc.current;
      if (isAlreadyLoaded(err) && cur) {
        // The agent has it open already (e.g. an earlier console loaded it): attached, without history.
        rt.liveGen = cur.gen;
      } else {
        this.runtimes.delete(rt.id);
        this.byAgent.delete(rt.agentId);
        throw this.ctx.mapError(err, "load the session");
      }
    } finally {
      rt.replay = undefined;
    }
    this.persist(rt, transcript);
    return rt;
  }

  private listedMeta(sessionId: string): { session: Session; cwd: string } | undefined {
    const l = this.listed.get(sessionId);
    if (!l) return undefined;
    const t = l.updatedAt ?? Date.now();
    return {
      cwd: l.cwd,
      session: {
        id: sessionId,
        backendId: this.ctx.backendId,
        title: l.title ?? DEFAULT_TITLE,
        directory: l.cwd,
        createdAt: t,
        updatedAt: t,
        status: "idle",
      },
    };
  }

  private async refreshListed(maxPages = 5): Promise<void> {
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const res = await this.ctx.call("list sessions", (c) => c.conn.listSessions(cursor));
      for (const s of res.sessions ?? []) {
        const updated = s.updatedAt ? Date.parse(s.updatedAt) : NaN;
        this.listed.set(s.sessionId, {
          cwd: s.cwd,
          ...(s.title ? { title: s.title } : {}),
          ...(Number.isFinite(updated) ? { updatedAt: updated } : {}),
        });
      }
      cursor = res.nextCursor ?? undefined;
      if (!cursor) break;
    }
  }

  /**
   * Makes sure the agent process running now has the session open: `session/resume` (no replay) or
   * `session/load` (replay dropped: the console already shows it) after a restart; agents that can do
   * neither get a new agent session, and the console keeps showing the old transcript.
   */
  async attach(rt: Runtime): Promise<Conn> {
    for (;;) {
      const c = await this.ctx.proc.whenReady();
      if (rt.liveGen === c.gen) return c;
      rt.attaching ??= this.reattach(rt, c).finally(() => (rt.attaching = undefined));
      await rt.attaching;
    }
  }

  private async reattach(rt: Runtime, c: Conn): Promise<void> {
    const caps = this.ctx.agentCaps();
    try {
      if (caps.sessionCapabilities?.resume) {
        const res = await withTimeout(c.conn.resume(rt.agentId, rt.cwd), REQUEST_TIMEOUT_MS, "session/resume");
        this.ctx.emit(rt, applySessionSetup(rt.norm, res));
      } else if (caps.loadSession) {
        rt.replay = { norm: newSessionState(rt.norm.session), v2: newV2State(), events: [], discard: true };
        try {
          const res = await withTimeout(c.conn.load(rt.agentId, rt.cwd), REQUEST_TIMEOUT_MS, "session/load");
          await drainIncoming();
          rt.replay = undefined;
          this.ctx.emit(rt, applySessionSetup(rt.norm, res));
        } catch (err) {
          if (!isAlreadyLoaded(err)) throw err;
        } finally {
          rt.replay = undefined;
        }
      } else {
        const res = await withTimeout(c.conn.newSession(rt.cwd), REQUEST_TIMEOUT_MS, "session/new");
        this.byAgent.delete(rt.agentId);
        rt.agentId = res.sessionId;
        this.byAgent.set(rt.agentId, rt);
        this.ctx.emit(rt, applySessionSetup(rt.norm, res));
        const last = this.transcriptOf(rt)?.messages.at(-1);
        if (last)
          this.ctx.emit(
            rt,
            appendNotice(
              rt.norm,
              last.id,
              "warn",
              "This agent cannot restore sessions: the conversation continues in a new agent session, without the earlier messages in its context.",
            ),
          );
      }
      rt.liveGen = c.gen;
      this.persist(rt);
    } catch (err) {
      throw this.ctx.mapError(err, "reopen the session");
    }
  }

  /** The agent's listed sessions, the kept ones and the live ones, newest first. */
  async list(
    q: { search?: string; limit: number; cursor?: string },
    onListError: (err: unknown) => void,
  ): Promise<{ items: Session[]; nextCursor?: string }> {
    if (this.ctx.agentCaps().sessionCapabilities?.list && this.ctx.proc.current)
      await this.refreshListed().catch(onListError);
    const byId = new Map<string, Session>();
    for (const [id] of this.listed) {
      const m = this.listedMeta(id);
      if (m) byId.set(id, m.session);
    }
    for (const t of this.ctx.transcripts.list()) {
      const l = this.listed.get(t.sessionId);
      const title = t.session.title === DEFAULT_TITLE && l?.title ? l.title : t.session.title;
      byId.set(t.sessionId, {
        ...t.session,
        title,
        updatedAt: Math.max(t.session.updatedAt, l?.updatedAt ?? 0),
        status: "idle",
      });
    }
    for (const rt of this.runtimes.values()) {
      const prev = byId.get(rt.id);
      const s = this.sessionOf(rt);
      byId.set(rt.id, { ...s, updatedAt: Math.max(s.updatedAt, prev?.updatedAt ?? 0) });
    }
    const all = [...byId.values()].map((s) => {
      const { settings: _settings, ...rest } = s;
      return rest;
    });
    return pageSessions(all, q);
  }
}
