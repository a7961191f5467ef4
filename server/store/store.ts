import "server-only";
import type { BackendDefinition } from "@/lib/api";

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

/** Everything the console keeps. Behind an interface so a server database can replace SQLite. */
export interface Store {
  listBackends(): StoredBackend[];
  putBackend(b: StoredBackend): void;
  deleteBackend(id: string): boolean;
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  putFork(f: ForkRecord): void;
  getFork(backendId: string, sessionId: string): ForkRecord | undefined;
  /** Forks made from `sourceSessionId`, oldest first. */
  listForks(backendId: string, sourceSessionId: string): ForkRecord[];
  /** Forget a fork (its session is gone); also the records of forks made from it. */
  deleteFork(backendId: string, sessionId: string): void;
  close(): void;
}
