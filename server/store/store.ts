import "server-only";
import type { BackendDefinition } from "@/lib/api";

export interface StoredBackend {
  id: string;
  def: BackendDefinition;
  createdAt: number;
}

/** Everything the console keeps. Behind an interface so a server database can replace SQLite. */
export interface Store {
  listBackends(): StoredBackend[];
  putBackend(b: StoredBackend): void;
  deleteBackend(id: string): boolean;
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  close(): void;
}
