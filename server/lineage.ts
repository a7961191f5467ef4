import "server-only";
import type { Session } from "@/lib/model";
import type { LiveStore } from "./store/store";

/**
 * Where forked sessions came from. OpenCode's fork records no parent, so the console keeps the
 * lineage in its store and stamps `forkedFrom` on every session it serves (lists, reads, snapshots
 * and live `session.updated` events).
 */
export class Lineage {
  constructor(
    private store: LiveStore,
    /** What else the console stamps on a session it serves (who created it). */
    private also: (backendId: string, session: Session) => Session = (_b, s) => s,
  ) {}

  record(backendId: string, sessionId: string, source: { sessionId: string; messageId?: string }): void {
    this.store.putFork({
      backendId,
      sessionId,
      sourceSessionId: source.sessionId,
      ...(source.messageId ? { sourceMessageId: source.messageId } : {}),
      createdAt: Date.now(),
    });
  }

  /** The session with `forkedFrom` set from the store (unchanged when the console did not fork it). */
  decorate(backendId: string, sessionIn: Session): Session {
    const session = this.also(backendId, sessionIn);
    if (session.forkedFrom) return session;
    const f = this.store.getFork(backendId, session.id);
    if (!f) return session;
    return {
      ...session,
      forkedFrom: { sessionId: f.sourceSessionId, ...(f.sourceMessageId ? { messageId: f.sourceMessageId } : {}) },
    };
  }

  /** Ids of the sessions forked from `sessionId`, oldest first. */
  forksOf(backendId: string, sessionId: string): string[] {
    return this.store.listForks(backendId, sessionId).map((f) => f.sessionId);
  }

  forget(backendId: string, sessionId: string): void {
    this.store.deleteFork(backendId, sessionId);
  }
}
