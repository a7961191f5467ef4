import "server-only";
import type { Interrupt, Message, Session, SessionStatus } from "@/lib/model";
import { interruptBlocks } from "@/lib/timeline/selectors";
import { describeError } from "../../errors";
import { log } from "../../log";
import { FIRST_PAGE_MESSAGES } from "../shared/session-list";
import type { LoadedSession } from "../types";
import type { ApiBackend } from "./api-backend";
import type { ApiUsageBook } from "./api-usage";
import { settleIdle, toTodos } from "./normalize";
import type { PendingRequests } from "./pending";
import { CUT_OFF_ERROR } from "./reconcile";
import { toStatus } from "./sessions";
import type { V1Backend } from "./v1-backend";

/** Messages a page while adding up a session's usage from its whole history. */
const USAGE_PAGE = 100;
/** How long a session's first load waits for the server's live statuses (`statusesRead`). */
const STATUS_READ_MS = 1_500;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

/** What a session's load reads from the adapter (./adapter.ts). */
export interface LoadContext {
  /** Live status of every session the stream told of (OpenCode omits idle ones). */
  statuses: Map<string, { status: SessionStatus; detail?: string }>;
  requests: PendingRequests;
  apiUsage: ApiUsageBook;
  v1: V1Backend;
  /** The `/api` backend, when that is the contract spoken (else V1 answers). */
  v2(): ApiBackend | undefined;
  /** A server is connected to (its client built). */
  connected(): boolean;
  /** Every session's live status, as the server tells it. */
  liveStatuses(): Promise<unknown>;
  /** A session's status: its live one, or `waiting` while an interrupt blocks it. */
  statusOf(sessionId: string): SessionStatus;
  getSession(sessionId: string): Promise<Session>;
  loadMessages(
    sessionId: string,
    q: { before?: string; limit: number },
  ): Promise<{ items: Message[]; nextCursor?: string }>;
  /** The event stream was lost while the session ran (its reply is marked cut off). */
  isCutOff(sessionId: string): boolean;
}

/** A session's load: the session, its latest page of messages, its interrupts and todos. */
export class SessionLoader {
  /** Whether the live statuses were read from the server since this adapter started. */
  private statusesKnown = false;

  constructor(private ctx: LoadContext) {}

  async load(sessionId: string): Promise<LoadedSession> {
    const [, session, page, todos] = await Promise.all([
      // Bounded: a server that does not answer must not hold the load (the stream reconciles later).
      Promise.race([this.statusesRead(), sleep(STATUS_READ_MS)]),
      this.ctx.getSession(sessionId),
      this.ctx.loadMessages(sessionId, { limit: FIRST_PAGE_MESSAGES }),
      // `/api` has no todo route: its todos arrive with `todo.updated` frames.
      this.ctx.v2() ? Promise.resolve([]) : this.ctx.v1.todos(sessionId),
      this.ctx.requests.refresh(),
    ]);
    const interrupts: Interrupt[] = [];
    for (const it of this.ctx.requests.list()) {
      if (interruptBlocks(it, sessionId) || (await this.ctx.requests.audience(it.sessionId)).includes(sessionId))
        interrupts.push(it);
    }
    interrupts.sort((a, b) => a.createdAt - b.createdAt);
    session.status = this.ctx.statusOf(sessionId);
    const v2 = this.ctx.v2();
    if (v2 && !session.usage) {
      const usage = await this.ctx.apiUsage
        .sessionUsage(sessionId, page, (before) => v2.loadMessages(sessionId, { before, limit: USAGE_PAGE }))
        .catch((err: unknown) => {
          log.warn("could not add up an opencode session's usage", { sessionId, error: describeError(err) });
          return undefined;
        });
      if (usage) session.usage = usage;
    }
    return {
      session,
      // On `/api` the cut-off mark is kept to the sessions the stream was lost under (its messages'
      // completion times are not known to be stamped as V1's are).
      messages:
        session.status === "idle"
          ? settleIdle(page.items, !this.ctx.v2() || this.ctx.isCutOff(sessionId) ? CUT_OFF_ERROR : undefined)
          : page.items,
      interrupts,
      todos: toTodos(todos),
      ...(page.nextCursor ? { olderCursor: page.nextCursor } : {}),
    };
  }

  /**
   * Reads the server's live statuses once, before the first session is loaded: a console that has
   * just started (or taken the backend over from another replica) must not call a running session
   * idle, and its reply cut off, because its event stream has not told it otherwise yet. Statuses
   * the stream has already given win.
   */
  private async statusesRead(): Promise<void> {
    if (this.statusesKnown || !this.ctx.connected()) return;
    const live = (await this.ctx.liveStatuses().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!live || this.statusesKnown) return;
    this.statusesKnown = true;
    for (const [sid, raw] of Object.entries(live))
      if (!this.ctx.statuses.has(sid)) this.ctx.statuses.set(sid, toStatus(raw));
  }
}
