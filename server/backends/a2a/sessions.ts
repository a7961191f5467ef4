import "server-only";
import { randomBytes } from "node:crypto";
import type { Message, Session, TimelineEvent, Usage } from "@/lib/model";
import { ApiError } from "../../errors";
import { pageSessions } from "../shared/session-list";
import { SessionRecords } from "../shared/session-records";
import type { TranscriptStore } from "../shared/transcripts";
import { statusOf, type LiveTurn, type SessionRuntime } from "../shared/turn-lifecycle";
import type { EventSink } from "../types";
import { newSessionNorm, type Profile, type SessionNorm } from "./normalize";

export const DEFAULT_TITLE = "New session";

/** A turn the console is running (one task, or the answer to a paused one). */
export interface RunningTurn extends LiveTurn {
  /** Aborts the consumption of its stream (not the task). */
  ac: AbortController;
  taskId?: string;
  stopping: boolean;
  /** The stream dropped once: the profile's text is corrected from the history at the end. */
  recovered: boolean;
}

/** What the adapter knows of one session; the hub holds its state. */
export interface Runtime extends SessionRuntime<RunningTurn> {
  /** The console's id: `a2a_…` for sessions made here, the OpenCode session id for listed ones. */
  id: string;
  /** Generic: the A2A context (learned from the first task). */
  contextId?: string;
  /** opencode-a2a: the OpenCode session it is bound to (`metadata.shared.session.id`). */
  ocSession?: string;
  norm: SessionNorm;
  session: Session;
  /** The title was set here (rename): the agent's does not replace it. */
  titleLocked: boolean;
  /** Generic: the task waits for the user's next message (input-required / auth-required). */
  paused?: { taskId: string; interruptId: string };
  /** opencode-a2a: a turn whose stream was lost is followed through the history. */
  watching?: boolean;
  usage?: Usage;
}

export function newId(): string {
  return `a2a_${randomBytes(12).toString("base64url")}`;
}

export interface A2aSessionsContext {
  backendId: string;
  transcripts: TranscriptStore;
  sink: EventSink;
  profile(): Profile;
}

/**
 * The sessions of one A2A backend: the ones made or used here (kept in the console's transcript
 * store, with the agent's id for them: the context for a plain agent, the OpenCode session for
 * opencode-a2a) and, for opencode-a2a, the ones its `opencode.sessions.list` lists.
 */
export class A2aSessions {
  private runtimes = new Map<string, Runtime>();
  private byAgent = new Map<string, Runtime>();
  /** opencode-a2a sessions last listed, by OpenCode id. */
  listed = new Map<string, Session>();
  /** What the adapter emitted, per session: the kept transcripts are saved from it. */
  private records: SessionRecords;

  constructor(private ctx: A2aSessionsContext) {
    this.records = new SessionRecords(ctx.backendId, ctx.sink, ctx.transcripts);
  }

  /** The one way a session's events leave the adapter: to the hub, and into the session's record. */
  publish(sessionId: string, events: TimelineEvent[]): void {
    this.records.publish(sessionId, events);
  }

  /** What the hub was handed besides events (a load, a reconcile): the record starts over from it. */
  recordLoaded(rt: Runtime, messages: Message[]): void {
    this.records.seed(rt.id, { session: this.sessionOf(rt), messages, todos: [] });
  }

  all(): Runtime[] {
    return [...this.runtimes.values()];
  }

  known(id: string): Runtime | undefined {
    return this.runtimes.get(id);
  }

  /** The runtime bound to an OpenCode session (or the kept session that is). */
  ofAgent(agentId: string): Runtime | undefined {
    const rt = this.byAgent.get(agentId);
    if (rt) return rt;
    const kept = this.ctx.transcripts
      .list()
      .find((t) => t.agentSessionId === agentId || (t.sessionId === agentId && this.ctx.profile() === "opencode"));
    return kept ? this.fromStore(kept.sessionId) : undefined;
  }

  create(title?: string): Runtime {
    const now = Date.now();
    const session: Session = {
      id: newId(),
      backendId: this.ctx.backendId,
      title: title || DEFAULT_TITLE,
      createdAt: now,
      updatedAt: now,
      status: "idle",
    };
    const rt = this.register(session, { titleLocked: Boolean(title) });
    this.persist(rt, []);
    return rt;
  }

  /** Binds a runtime to the agent's id for it (context or OpenCode session). */
  bind(rt: Runtime, agentId: string) {
    if (this.ctx.profile() === "opencode") {
      if (rt.ocSession === agentId) return;
      rt.ocSession = agentId;
    } else {
      if (rt.contextId === agentId) return;
      rt.contextId = agentId;
    }
    this.byAgent.set(agentId, rt);
    this.persist(rt);
  }

  private register(session: Session, opts: { titleLocked: boolean; agentId?: string }): Runtime {
    const profile = this.ctx.profile();
    const rt: Runtime = {
      id: session.id,
      norm: newSessionNorm(session.id, profile),
      session,
      titleLocked: opts.titleLocked,
      queued: [],
      ...(session.usage ? { usage: session.usage } : {}),
    };
    if (opts.agentId) {
      if (profile === "opencode") rt.ocSession = opts.agentId;
      else rt.contextId = opts.agentId;
      this.byAgent.set(opts.agentId, rt);
    }
    this.runtimes.set(rt.id, rt);
    return rt;
  }

  private fromStore(id: string): Runtime | undefined {
    const known = this.runtimes.get(id);
    if (known) return known;
    const t = this.ctx.transcripts.get(id);
    if (!t) return undefined;
    const agentId = t.agentSessionId ?? (this.ctx.profile() === "opencode" && !id.startsWith("a2a_") ? id : undefined);
    const listedTitle = agentId ? this.listed.get(agentId)?.title : undefined;
    return this.register(
      { ...t.session, status: "idle" },
      {
        titleLocked: t.session.title !== DEFAULT_TITLE && t.session.title !== listedTitle,
        ...(agentId ? { agentId } : {}),
      },
    );
  }

  /**
   * The runtime of a session: known, kept, or (opencode-a2a) an OpenCode session the agent has —
   * `exists` checks that one. 404 when none.
   */
  async get(id: string, exists?: (ocSession: string) => Promise<Session | undefined>): Promise<Runtime> {
    const rt = this.fromStore(id);
    if (rt) return rt;
    if (this.ctx.profile() === "opencode" && exists && !id.startsWith("a2a_")) {
      const s = this.listed.get(id) ?? (await exists(id));
      if (s) {
        const made = this.register(
          { ...s, backendId: this.ctx.backendId, status: "idle" },
          { titleLocked: false, agentId: id },
        );
        this.persist(made);
        return made;
      }
    }
    throw ApiError.notFound(`Unknown session: ${id}`);
  }

  forget(rt: Runtime) {
    this.runtimes.delete(rt.id);
    for (const [k, v] of this.byAgent) if (v === rt) this.byAgent.delete(k);
    this.records.forget(rt.id);
    this.ctx.transcripts.delete(rt.id);
  }

  sessionOf(rt: Runtime): Session {
    // A task paused on `input-required` is still the session's turn: busy (shown as waiting on its interrupt).
    return { ...rt.session, status: statusOf(rt, rt.paused !== undefined), ...(rt.usage ? { usage: rt.usage } : {}) };
  }

  /** The messages as the adapter emitted them (on top of what the console kept). */
  messagesOf(rt: Runtime): Message[] {
    return this.records.messages(rt.id);
  }

  /** Keeps the session and its transcript (as emitted, or `messages` for a new session). */
  persist(rt: Runtime, messages?: Message[]) {
    if (messages) this.recordLoaded(rt, messages);
    else messages = this.messagesOf(rt);
    const agentSessionId = this.ctx.profile() === "opencode" ? rt.ocSession : rt.contextId;
    this.ctx.transcripts.save({
      session: this.sessionOf(rt),
      messages,
      todos: [],
      ...(agentSessionId ? { agentSessionId } : {}),
    });
  }

  /** Every session: the kept ones, the live ones, and (opencode-a2a) the listed ones not bound to a kept one. */
  list(q: { search?: string; limit: number; cursor?: string }): { items: Session[]; nextCursor?: string } {
    const byId = new Map<string, Session>();
    const bound = new Set<string>();
    for (const t of this.ctx.transcripts.list()) {
      if (t.agentSessionId) bound.add(t.agentSessionId);
      byId.set(t.sessionId, { ...t.session, status: "idle" });
    }
    for (const rt of this.runtimes.values()) {
      if (rt.ocSession) bound.add(rt.ocSession);
      byId.set(rt.id, this.sessionOf(rt));
    }
    for (const [id, s] of this.listed) {
      if (bound.has(id) && !byId.has(id)) continue;
      const mine = byId.get(id);
      byId.set(
        id,
        mine
          ? {
              ...mine,
              title: this.runtimes.get(id)?.titleLocked || mine.title !== DEFAULT_TITLE ? mine.title : s.title,
              updatedAt: Math.max(mine.updatedAt, s.updatedAt),
            }
          : s,
      );
    }
    return pageSessions([...byId.values()], q);
  }
}
