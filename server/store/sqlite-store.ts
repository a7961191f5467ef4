import "server-only";
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { BackendDefinition } from "@/lib/api";
import { log } from "../log";
import type { ForkRecord, Store, StoredBackend } from "./store";

interface ForkRow {
  backend_id: string;
  session_id: string;
  source_session_id: string;
  source_message_id: string | null;
  created_at: number;
}

const toFork = (r: ForkRow): ForkRecord => ({
  backendId: r.backend_id,
  sessionId: r.session_id,
  sourceSessionId: r.source_session_id,
  ...(r.source_message_id ? { sourceMessageId: r.source_message_id } : {}),
  createdAt: r.created_at,
});

/** Versioned migrations, applied in order at start-up; never edit one that has shipped. */
const MIGRATIONS: string[] = [
  `CREATE TABLE backends (
     id TEXT PRIMARY KEY,
     definition TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // Session lineage: forks made through the console (OpenCode's fork records no parent).
  `CREATE TABLE session_forks (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     source_session_id TEXT NOT NULL,
     source_message_id TEXT,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );
   CREATE INDEX session_forks_source ON session_forks (backend_id, source_session_id);`,
];

export class SqliteStore implements Store {
  private db: Database.Database;

  constructor(file: string) {
    if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("foreign_keys = ON");
    this.migrate();
  }

  private migrate() {
    const current = this.db.pragma("user_version", { simple: true }) as number;
    for (let v = current; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
      log.info("applied store migration", { version: v + 1 });
    }
  }

  listBackends(): StoredBackend[] {
    const rows = this.db.prepare("SELECT id, definition, created_at FROM backends ORDER BY created_at").all() as {
      id: string;
      definition: string;
      created_at: number;
    }[];
    return rows.flatMap((r) => {
      const parsed = BackendDefinition.safeParse(JSON.parse(r.definition));
      if (!parsed.success) {
        log.warn("ignoring stored backend with an invalid definition", { id: r.id });
        return [];
      }
      return [{ id: r.id, def: parsed.data, createdAt: r.created_at }];
    });
  }

  putBackend(b: StoredBackend): void {
    this.db
      .prepare("INSERT INTO backends (id, definition, created_at) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET definition = excluded.definition")
      .run(b.id, JSON.stringify(b.def), b.createdAt);
  }

  deleteBackend(id: string): boolean {
    return this.db.prepare("DELETE FROM backends WHERE id = ?").run(id).changes > 0;
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  putFork(f: ForkRecord): void {
    this.db
      .prepare(
        `INSERT INTO session_forks (backend_id, session_id, source_session_id, source_message_id, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(backend_id, session_id) DO UPDATE SET source_session_id = excluded.source_session_id, source_message_id = excluded.source_message_id`,
      )
      .run(f.backendId, f.sessionId, f.sourceSessionId, f.sourceMessageId ?? null, f.createdAt);
  }

  getFork(backendId: string, sessionId: string): ForkRecord | undefined {
    const row = this.db.prepare("SELECT * FROM session_forks WHERE backend_id = ? AND session_id = ?").get(backendId, sessionId) as ForkRow | undefined;
    return row ? toFork(row) : undefined;
  }

  listForks(backendId: string, sourceSessionId: string): ForkRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM session_forks WHERE backend_id = ? AND source_session_id = ? ORDER BY created_at, session_id")
      .all(backendId, sourceSessionId) as ForkRow[];
    return rows.map(toFork);
  }

  deleteFork(backendId: string, sessionId: string): void {
    this.db.prepare("DELETE FROM session_forks WHERE backend_id = ? AND (session_id = ? OR source_session_id = ?)").run(backendId, sessionId, sessionId);
  }

  close(): void {
    this.db.close();
  }
}
