import "server-only";
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BackendDefinition } from "@/lib/api";
import { Message, Session, Todo } from "@/lib/model";
import { log } from "../log";
import type { Store, StoredBackend, StoredTranscript } from "./store";

/** Versioned migrations, applied in order at start-up; never edit one that has shipped. */
const MIGRATIONS: string[] = [
  `CREATE TABLE backends (
     id TEXT PRIMARY KEY,
     definition TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // 2: sessions of backends without their own history (ACP agents without loadSession, zot)
  `CREATE TABLE transcripts (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     session TEXT NOT NULL,
     messages TEXT,
     todos TEXT,
     agent_session_id TEXT,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );
   CREATE INDEX transcripts_by_backend ON transcripts (backend_id, updated_at DESC);`,
];

type TranscriptRow = {
  backend_id: string;
  session_id: string;
  session: string;
  messages?: string | null;
  todos: string | null;
  agent_session_id: string | null;
  updated_at: number;
};

function parseJson<T>(schema: z.ZodType<T>, text: string | null | undefined): T | undefined {
  if (!text) return undefined;
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

function toTranscript(r: TranscriptRow): StoredTranscript | undefined {
  const session = parseJson(Session, r.session);
  if (!session) {
    log.warn("ignoring a stored session that does not parse", { backendId: r.backend_id, sessionId: r.session_id });
    return undefined;
  }
  const messages = parseJson(z.array(Message), r.messages);
  const todos = parseJson(z.array(Todo), r.todos);
  return {
    backendId: r.backend_id,
    sessionId: r.session_id,
    session,
    updatedAt: r.updated_at,
    ...(messages ? { messages } : {}),
    ...(todos ? { todos } : {}),
    ...(r.agent_session_id ? { agentSessionId: r.agent_session_id } : {}),
  };
}

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

  getTranscript(backendId: string, sessionId: string): StoredTranscript | undefined {
    const row = this.db.prepare("SELECT * FROM transcripts WHERE backend_id = ? AND session_id = ?").get(backendId, sessionId) as TranscriptRow | undefined;
    return row ? toTranscript(row) : undefined;
  }

  listTranscripts(backendId: string, limit = 1000): StoredTranscript[] {
    const rows = this.db
      .prepare("SELECT backend_id, session_id, session, todos, agent_session_id, updated_at FROM transcripts WHERE backend_id = ? ORDER BY updated_at DESC LIMIT ?")
      .all(backendId, limit) as TranscriptRow[];
    return rows.flatMap((r) => toTranscript(r) ?? []);
  }

  putTranscript(t: StoredTranscript): void {
    this.db
      .prepare(
        `INSERT INTO transcripts (backend_id, session_id, session, messages, todos, agent_session_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(backend_id, session_id) DO UPDATE SET session = excluded.session, messages = excluded.messages, todos = excluded.todos,
           agent_session_id = excluded.agent_session_id, updated_at = excluded.updated_at`,
      )
      .run(
        t.backendId,
        t.sessionId,
        JSON.stringify(t.session),
        t.messages ? JSON.stringify(t.messages) : null,
        t.todos ? JSON.stringify(t.todos) : null,
        t.agentSessionId ?? null,
        t.updatedAt,
      );
  }

  deleteTranscript(backendId: string, sessionId: string): void {
    this.db.prepare("DELETE FROM transcripts WHERE backend_id = ? AND session_id = ?").run(backendId, sessionId);
  }

  deleteTranscripts(backendId: string): void {
    this.db.prepare("DELETE FROM transcripts WHERE backend_id = ?").run(backendId);
  }

  close(): void {
    this.db.close();
  }
}
