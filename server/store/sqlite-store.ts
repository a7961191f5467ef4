import "server-only";
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { BackendDefinition } from "@/lib/api";
import { log } from "../log";
import type { Store, StoredBackend } from "./store";

/** Versioned migrations, applied in order at start-up; never edit one that has shipped. */
const MIGRATIONS: string[] = [
  `CREATE TABLE backends (
     id TEXT PRIMARY KEY,
     definition TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
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

  close(): void {
    this.db.close();
  }
}
