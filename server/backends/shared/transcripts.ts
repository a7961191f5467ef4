import "server-only";
import type { Message, Session, Todo } from "@/lib/model";
import { describeError } from "../../errors";
import { log } from "../../log";
import type { LiveStore, StoredTranscript } from "../../store/store";

/** How many of the newest messages are kept per session. */
export const KEPT_MESSAGES = 1000;

export interface TranscriptSave {
  session: Session;
  /** The canonical transcript; omit for an agent that replays its own history (only metadata is kept). */
  messages?: Message[];
  todos?: Todo[];
  /** The id the agent knows the session by, when it differs from the console's. */
  agentSessionId?: string;
}

/**
 * The console-kept transcript of one backend's sessions (store table `transcripts`,
 * server/store/tables/transcripts.ts), for agents that keep no history of their own (ACP agents
 * without `loadSession`, zot) — and the metadata every stdio session needs across console restarts
 * (working directory, a local title, the agent's own id for it). Saved sessions are stored idle
 * (a turn does not survive a restart); only the newest `KEPT_MESSAGES` messages are kept. A store
 * failure is logged, never thrown: the live session goes on.
 */
export class TranscriptStore {
  constructor(
    private store: LiveStore,
    private backendId: string,
  ) {}

  get(sessionId: string): StoredTranscript | undefined {
    return this.store.getTranscript(this.backendId, sessionId);
  }

  /** Newest first, without messages. */
  list(limit?: number): StoredTranscript[] {
    return this.store.listTranscripts(this.backendId, limit);
  }

  save(t: TranscriptSave): void {
    try {
      const session = { ...t.session, status: "idle" as const };
      this.store.putTranscript({
        backendId: this.backendId,
        sessionId: session.id,
        session,
        ...(t.messages ? { messages: t.messages.slice(-KEPT_MESSAGES) } : {}),
        ...(t.messages && t.todos ? { todos: t.todos } : {}),
        ...(t.agentSessionId !== undefined && t.agentSessionId !== session.id
          ? { agentSessionId: t.agentSessionId }
          : {}),
        updatedAt: session.updatedAt,
      });
    } catch (err) {
      log.warn("could not keep a session's transcript", {
        backend: this.backendId,
        sessionId: t.session.id,
        error: describeError(err),
      });
    }
  }

  delete(sessionId: string): void {
    this.store.deleteTranscript(this.backendId, sessionId);
  }

  deleteAll(): void {
    this.store.deleteTranscripts(this.backendId);
  }
}
