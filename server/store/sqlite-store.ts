import "server-only";
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { log } from "../log";
import { SyncComposed } from "./composed-store";
import type { SearchDocument, Store, StoreItem } from "./store";
import { migrations } from "./tables";
import { allForks } from "./tables/forks";
import { type Program, runSync, type Step, skipped, textOn } from "./tables/program";
import { SEARCH_SESSIONS, SQLITE_DOCUMENTS } from "./tables/search";
import { ALL_TRANSCRIPTS, type Row as TranscriptRow, toTranscript } from "./tables/transcripts";

const MIGRATIONS = migrations("sqlite");

/** The store in one SQLite file (better-sqlite3, WAL): every call answers at once. */
export class SqliteStore extends SyncComposed implements Store {
  private db: Database.Database;
  private statements = new Map<string, Database.Statement>();

  /** `quiet`: no log line per migration (a copy in memory, ./cached-store.ts). */
  constructor(file: string, opts: { quiet?: boolean } = {}) {
    super();
    if (file !== ":memory:") {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Created 0600 before SQLite opens it: its -wal and -shm files take the database's mode.
      fs.closeSync(fs.openSync(file, "a", 0o600));
    }
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("foreign_keys = ON");
    this.migrate(opts.quiet ?? false);
  }

  private migrate(quiet: boolean) {
    const current = this.db.pragma("user_version", { simple: true }) as number;
    for (let v = current; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
      if (!quiet) log.info("applied store migration", { version: v + 1 });
    }
  }

  execute<T>(p: Program<T>): T {
    return runSync(p, (s) => this.perform(s));
  }

  private prepared(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  private perform(s: Step): unknown {
    if (s.op === "engine") return "sqlite";
    if (s.op === "notify") return undefined;
    if (s.op === "atomic") return this.db.transaction(() => this.execute(s.body))();
    const text = textOn(s.sql, "sqlite");
    if (text === undefined) return skipped(s.op);
    const st = this.prepared(text);
    // SQLite has no booleans: 1 and 0.
    const params = s.params.map((v) => (typeof v === "boolean" ? Number(v) : v));
    if (s.op === "all") return st.all(...params);
    if (s.op === "get") return st.get(...params);
    return st.run(...params).changes;
  }

  /**
   * Everything this store holds, table by table, for `npm run store:copy` (server/store/copy-store.ts):
   * the rows as the store's own readers give them, transcripts and search documents one at a time.
   */
  *exportAll(): Generator<StoreItem> {
    for (const b of this.listBackends()) yield { kind: "backend", value: b };
    for (const [key, value] of this.listMeta("")) yield { kind: "meta", key, value };
    for (const sh of this.listShares()) {
      const frozen = this.frozenSnapshot(sh.id);
      yield { kind: "share", value: sh, ...(frozen !== undefined ? { frozen } : {}) };
    }
    for (const p of this.listRedactionPatterns()) yield { kind: "redaction", value: p };
    for (const f of this.execute(allForks())) yield { kind: "fork", value: f };
    for (const r of this.db.prepare(ALL_TRANSCRIPTS).iterate() as IterableIterator<TranscriptRow>)
      for (const value of toTranscript(r)) yield { kind: "transcript", value };
    const sessions = this.db.prepare(SEARCH_SESSIONS).all() as {
      backend_id: string;
      session_id: string;
      title: string;
      updated_at: number;
    }[];
    for (const r of sessions)
      yield {
        kind: "searchSession",
        backendId: r.backend_id,
        sessionId: r.session_id,
        title: r.title,
        updatedAt: r.updated_at,
      };
    const docs = this.db.prepare(SQLITE_DOCUMENTS).iterate() as IterableIterator<{
      backend_id: string;
      session_id: string;
      message_id: string;
      role: SearchDocument["role"];
      created_at: number;
      text: string;
    }>;
    for (const r of docs)
      yield {
        kind: "searchDocument",
        value: {
          backendId: r.backend_id,
          sessionId: r.session_id,
          messageId: r.message_id,
          role: r.role,
          createdAt: r.created_at,
          text: r.text,
        },
      };
  }

  close(): void {
    this.db.close();
  }
}
