import "server-only";
import type { BackendDefinition } from "@/lib/api";
import type { Message, PersonRef, Session, Todo } from "@/lib/model";
import type { AuditEntry, AuditQuery } from "@/lib/people";

export interface StoredBackend {
  id: string;
  def: BackendDefinition;
  createdAt: number;
}

/** A session the console forked: the backend itself may not record where it came from. */
export interface ForkRecord {
  backendId: string;
  sessionId: string;
  sourceSessionId: string;
  sourceMessageId?: string;
  createdAt: number;
}

export interface StoredShare {
  id: string;
  /** SHA-256 (hex) of the share's token; the token itself is never stored. */
  tokenHash: string;
  backendId: string;
  sessionId: string;
  /** The session's title when the share was created (for the management list). */
  sessionTitle: string;
  /** Last message shared (inclusive); absent = the whole session. */
  upToMessageId?: string;
  /** `createdAt` of that message: messages are ordered by (createdAt, id). */
  upToCreatedAt?: number;
  live: boolean;
  includeToolOutput: boolean;
  createdAt: number;
  /** Epoch ms; null = never. */
  expiresAt: number | null;
  revokedAt?: number;
  lastAccessAt?: number;
  accessCount: number;
  /** Who made the share (docs/people.md); absent for shares from before people signed in. */
  createdBy?: PersonRef;
}

export interface StoredRedactionPattern {
  id: string;
  label: string;
  pattern: string;
  regex: boolean;
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

/** One message's searchable text (docs/search.md). */
export interface SearchDocument {
  backendId: string;
  sessionId: string;
  messageId: string;
  role: "user" | "assistant" | "system";
  createdAt: number;
  text: string;
}

/** A message that matched: `snippet` is plain text, `matches` the [start, end) ranges of the words found. */
export interface StoredSearchHit {
  backendId: string;
  sessionId: string;
  sessionTitle: string;
  messageId: string;
  role: "user" | "assistant" | "system";
  createdAt: number;
  snippet: string;
  matches: [number, number][];
}

/** One row of a store's export (`SqliteStore.exportAll`), for the copy into PostgreSQL. */
export type StoreItem =
  | { kind: "backend"; value: StoredBackend }
  | { kind: "meta"; key: string; value: string }
  | { kind: "share"; value: StoredShare; frozen?: string }
  | { kind: "redaction"; value: StoredRedactionPattern }
  | { kind: "fork"; value: ForkRecord }
  | { kind: "transcript"; value: StoredTranscript }
  | { kind: "searchSession"; backendId: string; sessionId: string; title: string; updatedAt: number }
  | { kind: "searchDocument"; value: SearchDocument };

/** Everything the console keeps. Behind an interface so a server database can replace SQLite. */
export interface Store {
  listBackends(): StoredBackend[];
  putBackend(b: StoredBackend): void;
  deleteBackend(id: string): boolean;
  insertShare(share: StoredShare, frozen?: string): void;
  getShare(id: string): StoredShare | undefined;
  shareByTokenHash(hash: string): StoredShare | undefined;
  listShares(): StoredShare[];
  /** The redacted snapshot of a frozen share (JSON). */
  frozenSnapshot(id: string): string | undefined;
  /** Marks a share revoked and drops its frozen snapshot; false when it was unknown or already revoked. */
  revokeShare(id: string, at: number): boolean;
  /** Drops the frozen snapshot of an ended share (nothing of it is kept once it cannot be served). */
  dropFrozenSnapshot(id: string): void;
  touchShare(id: string, at: number, count: number): void;
  listRedactionPatterns(): StoredRedactionPattern[];
  insertRedactionPattern(p: StoredRedactionPattern): void;
  deleteRedactionPattern(id: string): boolean;
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  /** Removes a setting; false when there was none. */
  deleteMeta(key: string): boolean;
  /** The settings whose key starts with `prefix`, by key (the stored secrets are found by their prefixes). */
  listMeta(prefix: string): [string, string][];
  putFork(f: ForkRecord): void;
  getFork(backendId: string, sessionId: string): ForkRecord | undefined;
  /** Forks made from `sourceSessionId`, oldest first. */
  listForks(backendId: string, sourceSessionId: string): ForkRecord[];
  /** Forget a fork (its session is gone); also the records of forks made from it. */
  deleteFork(backendId: string, sessionId: string): void;
  getTranscript(backendId: string, sessionId: string): StoredTranscript | undefined;
  /** Newest first, without `messages`. */
  listTranscripts(backendId: string, limit?: number): StoredTranscript[];
  putTranscript(t: StoredTranscript): void;
  deleteTranscript(backendId: string, sessionId: string): void;
  deleteTranscripts(backendId: string): void;
  /** Replaces the indexed text of each given message (an empty text removes the message). */
  putSearchDocuments(docs: SearchDocument[]): void;
  /** Records a session's title and the `updatedAt` it was indexed at. */
  putSearchSession(backendId: string, sessionId: string, title: string, updatedAt: number): void;
  /** The `updatedAt` a session was last indexed at, if it was. */
  searchSessionUpdatedAt(backendId: string, sessionId: string): number | undefined;
  /** The sessions of a backend the index holds. */
  searchSessionIds(backendId: string): string[];
  /** Drops a session's entries (deleted), or a whole backend's (sessionId omitted). */
  deleteSearchSession(backendId: string, sessionId?: string): void;
  /** Counts of what is indexed, per backend. */
  searchCounts(): { backendId: string; sessions: number; messages: number }[];
  /** Runs an FTS5 query (built by `ftsQuery`, never raw user input); best matches first. */
  search(match: string, q: { backendId?: string; limit: number; offset: number }): StoredSearchHit[];
  /** Appends to the audit log (docs/people.md); nothing edits or removes an entry. */
  appendAudit(entry: Omit<AuditEntry, "id">): void;
  /** Audit entries, newest first. */
  listAudit(q: AuditQuery): AuditEntry[];
  close(): void;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * The store as the running console uses it. `SqliteStore` is one as it is (every call answers at
 * once). On PostgreSQL it is a `CachedStore` (server/store/cached-store.ts): the tables every request
 * reads synchronously are held in memory and kept current by every replica's NOTIFY; writes apply to
 * that copy at once and reach the database in order behind it. The reads that only a database can
 * answer — a frozen share's snapshot and the search index — may be promises: callers `await` them.
 */
export interface LiveStore
  extends Omit<
    Store,
    "frozenSnapshot" | "searchSessionUpdatedAt" | "searchSessionIds" | "searchCounts" | "search" | "listAudit" | "close"
  > {
  frozenSnapshot(id: string): MaybePromise<string | undefined>;
  searchSessionUpdatedAt(backendId: string, sessionId: string): MaybePromise<number | undefined>;
  searchSessionIds(backendId: string): MaybePromise<string[]>;
  searchCounts(): MaybePromise<{ backendId: string; sessions: number; messages: number }[]>;
  search(match: string, q: { backendId?: string; limit: number; offset: number }): MaybePromise<StoredSearchHit[]>;
  listAudit(q: AuditQuery): MaybePromise<AuditEntry[]>;
  close(): MaybePromise<void>;
  /**
   * Calls `fn` after one of the shared tables (backends, meta, shares, redaction_patterns,
   * session_forks) was read again because a console wrote it: another replica's revocation, pattern
   * or backend. Only a store other consoles write to has it (PostgreSQL's `CachedStore`).
   */
  onChange?(fn: (table: string) => void): () => void;
  /**
   * Reads a shared table again now, rather than on the next NOTIFY: something another replica
   * wrote a moment ago (a share just made there) is asked for here.
   */
  refresh?(table: "shares"): Promise<void>;
  /** Resolves when every write made so far has reached the database (a store that queues them). */
  flushed?(): Promise<void>;
  /** Reads a backend's transcripts again from the database: this replica has just taken it over. */
  reloadTranscripts?(backendId: string): Promise<void>;
  /** Forgets a backend's transcripts held in memory (the database keeps them): another replica runs it now. */
  dropTranscripts?(backendId: string): void;
}
