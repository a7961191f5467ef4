import "server-only";
import type { BackendDefinition } from "@/lib/api";
import type { Message, Session, Todo } from "@/lib/model";

export interface StoredBackend {
  id: string;
  def: BackendDefinition;
  createdAt: number;
}

/**
 * What the console keeps of a session for backends that keep no history themselves (ACP agents
 * without `loadSession`, zot), and the metadata every ACP session needs across restarts (working
 * directory, a local title, the agent's current id for it).
 */
export interface StoredTranscript {
  backendId: string;
  sessionId: string;
  session: Session;
  /** The canonical transcript; absent when the agent replays its own history. */
  messages?: Message[];
  todos?: Todo[];
  /** The id the agent knows the session by, when it differs (an agent restarted without `loadSession`). */
  agentSessionId?: string;
  updatedAt: number;
}

/** Everything the console keeps. Behind an interface so a server database can replace SQLite. */
export interface Store {
  listBackends(): StoredBackend[];
  putBackend(b: StoredBackend): void;
  deleteBackend(id: string): boolean;
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  getTranscript(backendId: string, sessionId: string): StoredTranscript | undefined;
  /** Newest first, without `messages`. */
  listTranscripts(backendId: string, limit?: number): StoredTranscript[];
  putTranscript(t: StoredTranscript): void;
  deleteTranscript(backendId: string, sessionId: string): void;
  deleteTranscripts(backendId: string): void;
  close(): void;
}
