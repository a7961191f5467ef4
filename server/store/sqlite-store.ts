import "server-only";
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { BackendDefinition } from "@/lib/api";
import { log } from "../log";
import type { AuditEntry, AuditQuery } from "@/lib/people";
import { indexedPrefix } from "../search/indexed-text";
import {
  AUDIT_INSERT_COLUMNS,
  type AuditRow,
  auditFromRow,
  auditValues,
  auditWhere,
  SQLITE_AUDIT_MIGRATION,
} from "./audit-rows";
import {
  type ForkRow,
  SHARE_COLUMNS,
  type ShareRow,
  shareFromRow,
  type TranscriptRow,
  toFork,
  toTranscript,
} from "./rows";
import type {
  ForkRecord,
  SearchDocument,
  Store,
  StoredBackend,
  StoredRedactionPattern,
  StoredSearchHit,
  StoredShare,
  StoredTranscript,
  StoreItem,
} from "./store";

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
  // Share links (issue 6): tokens are stored only as their SHA-256.
  `CREATE TABLE shares (
     id TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL UNIQUE,
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     session_title TEXT NOT NULL,
     up_to_message_id TEXT,
     up_to_created_at INTEGER,
     live INTEGER NOT NULL,
     include_tool_output INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     revoked_at INTEGER,
     last_access_at INTEGER,
     access_count INTEGER NOT NULL DEFAULT 0,
     frozen_snapshot TEXT
   );
   CREATE INDEX shares_session ON shares (backend_id, session_id);
   CREATE TABLE redaction_patterns (
     id TEXT PRIMARY KEY,
     label TEXT NOT NULL,
     pattern TEXT NOT NULL,
     is_regex INTEGER NOT NULL,
     created_at INTEGER NOT NULL
   );`,
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
  // 5: full-text search over every session's messages (docs/search.md). One row per message; the
  // FTS5 table holds the text under the row's id.
  `CREATE TABLE search_rows (
     id INTEGER PRIMARY KEY,
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     message_id TEXT NOT NULL,
     role TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     UNIQUE (backend_id, session_id, message_id)
   );
   CREATE VIRTUAL TABLE search_fts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
   CREATE TABLE search_sessions (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     title TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );`,
  // 6: the audit log (issue 44)
  SQLITE_AUDIT_MIGRATION,
  // 7: who made each share (issue 44)
  `ALTER TABLE shares ADD COLUMN created_by_id TEXT;
   ALTER TABLE shares ADD COLUMN created_by_name TEXT;`,
];

export class SqliteStore implements Store {
  private db: Database.Database;

  constructor(file: string) {
    if (file !== ":memory:") {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Created 0600 before SQLite opens it: its -wal and -shm files take the database's mode.
      fs.closeSync(fs.openSync(file, "a", 0o600));
    }
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("foreign_keys = ON");
    this.migrate();
  }

  appendAudit(e: Omit<AuditEntry, "id">): void {
    this.db
      .prepare(`INSERT INTO audit_log (${AUDIT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(...auditValues(e));
  }

  listAudit(q: AuditQuery): AuditEntry[] {
    const { where, values } = auditWhere(q, () => "?");
    const rows = this.db
      .prepare(`SELECT * FROM audit_log ${where} ORDER BY id DESC LIMIT ?`)
      .all(...values, q.limit) as AuditRow[];
    return rows.flatMap(auditFromRow);
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
      .prepare(
        "INSERT INTO backends (id, definition, created_at) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET definition = excluded.definition",
      )
      .run(b.id, JSON.stringify(b.def), b.createdAt);
  }

  deleteBackend(id: string): boolean {
    return this.db.prepare("DELETE FROM backends WHERE id = ?").run(id).changes > 0;
  }

  insertShare(s: StoredShare, frozen?: string): void {
    this.db
      .prepare(
        `INSERT INTO shares (${SHARE_COLUMNS}, frozen_snapshot) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        s.id,
        s.tokenHash,
        s.backendId,
        s.sessionId,
        s.sessionTitle,
        s.upToMessageId ?? null,
        s.upToCreatedAt ?? null,
        s.live ? 1 : 0,
        s.includeToolOutput ? 1 : 0,
        s.createdAt,
        s.expiresAt,
        s.revokedAt ?? null,
        s.lastAccessAt ?? null,
        s.accessCount,
        s.createdBy?.id ?? null,
        s.createdBy?.name ?? null,
        frozen ?? null,
      );
  }

  getShare(id: string): StoredShare | undefined {
    const row = this.db.prepare(`SELECT ${SHARE_COLUMNS} FROM shares WHERE id = ?`).get(id) as ShareRow | undefined;
    return row ? shareFromRow(row) : undefined;
  }

  shareByTokenHash(hash: string): StoredShare | undefined {
    const row = this.db.prepare(`SELECT ${SHARE_COLUMNS} FROM shares WHERE token_hash = ?`).get(hash) as
      | ShareRow
      | undefined;
    return row ? shareFromRow(row) : undefined;
  }

  listShares(): StoredShare[] {
    const rows = this.db.prepare(`SELECT ${SHARE_COLUMNS} FROM shares ORDER BY created_at DESC`).all() as ShareRow[];
    return rows.map(shareFromRow);
  }

  frozenSnapshot(id: string): string | undefined {
    const row = this.db.prepare("SELECT frozen_snapshot FROM shares WHERE id = ?").get(id) as
      | { frozen_snapshot: string | null }
      | undefined;
    return row?.frozen_snapshot ?? undefined;
  }

  revokeShare(id: string, at: number): boolean {
    return (
      this.db
        .prepare("UPDATE shares SET revoked_at = ?, frozen_snapshot = NULL WHERE id = ? AND revoked_at IS NULL")
        .run(at, id).changes > 0
    );
  }

  dropFrozenSnapshot(id: string): void {
    this.db.prepare("UPDATE shares SET frozen_snapshot = NULL WHERE id = ? AND frozen_snapshot IS NOT NULL").run(id);
  }

  touchShare(id: string, at: number, count: number): void {
    this.db
      .prepare("UPDATE shares SET last_access_at = ?, access_count = access_count + ? WHERE id = ?")
      .run(at, count, id);
  }

  listRedactionPatterns(): StoredRedactionPattern[] {
    const rows = this.db
      .prepare("SELECT id, label, pattern, is_regex, created_at FROM redaction_patterns ORDER BY created_at")
      .all() as {
      id: string;
      label: string;
      pattern: string;
      is_regex: number;
      created_at: number;
    }[];
    return rows.map((r) => ({
      id: r.id,
      label: r.label,
      pattern: r.pattern,
      regex: r.is_regex === 1,
      createdAt: r.created_at,
    }));
  }

  insertRedactionPattern(p: StoredRedactionPattern): void {
    this.db
      .prepare("INSERT INTO redaction_patterns (id, label, pattern, is_regex, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(p.id, p.label, p.pattern, p.regex ? 1 : 0, p.createdAt);
  }

  deleteRedactionPattern(id: string): boolean {
    return this.db.prepare("DELETE FROM redaction_patterns WHERE id = ?").run(id).changes > 0;
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db
      .prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(key, value);
  }

  deleteMeta(key: string): boolean {
    return this.db.prepare("DELETE FROM meta WHERE key = ?").run(key).changes > 0;
  }

  listMeta(prefix: string): [string, string][] {
    const rows = this.db
      .prepare("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key")
      .all(prefix.length, prefix) as { key: string; value: string }[];
    return rows.map((r) => [r.key, r.value]);
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
    const row = this.db
      .prepare("SELECT * FROM session_forks WHERE backend_id = ? AND session_id = ?")
      .get(backendId, sessionId) as ForkRow | undefined;
    return row ? toFork(row) : undefined;
  }

  listForks(backendId: string, sourceSessionId: string): ForkRecord[] {
    const rows = this.db
      .prepare(
        "SELECT * FROM session_forks WHERE backend_id = ? AND source_session_id = ? ORDER BY created_at, session_id",
      )
      .all(backendId, sourceSessionId) as ForkRow[];
    return rows.map(toFork);
  }

  deleteFork(backendId: string, sessionId: string): void {
    this.db
      .prepare("DELETE FROM session_forks WHERE backend_id = ? AND (session_id = ? OR source_session_id = ?)")
      .run(backendId, sessionId, sessionId);
  }

  getTranscript(backendId: string, sessionId: string): StoredTranscript | undefined {
    const row = this.db
      .prepare("SELECT * FROM transcripts WHERE backend_id = ? AND session_id = ?")
      .get(backendId, sessionId) as TranscriptRow | undefined;
    return row ? toTranscript(row) : undefined;
  }

  listTranscripts(backendId: string, limit = 1000): StoredTranscript[] {
    const rows = this.db
      .prepare(
        "SELECT backend_id, session_id, session, todos, agent_session_id, updated_at FROM transcripts WHERE backend_id = ? ORDER BY updated_at DESC LIMIT ?",
      )
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

  putSearchDocuments(docs: SearchDocument[]): void {
    const find = this.db.prepare(
      "SELECT id FROM search_rows WHERE backend_id = ? AND session_id = ? AND message_id = ?",
    );
    const dropText = this.db.prepare("DELETE FROM search_fts WHERE rowid = ?");
    const dropRow = this.db.prepare("DELETE FROM search_rows WHERE id = ?");
    const addRow = this.db.prepare(
      "INSERT INTO search_rows (backend_id, session_id, message_id, role, created_at) VALUES (?, ?, ?, ?, ?)",
    );
    const addText = this.db.prepare("INSERT INTO search_fts (rowid, text) VALUES (?, ?)");
    this.db.transaction(() => {
      for (const d of docs) {
        const old = find.get(d.backendId, d.sessionId, d.messageId) as { id: number } | undefined;
        if (old) {
          dropText.run(old.id);
          dropRow.run(old.id);
        }
        if (!d.text.trim()) continue;
        const { lastInsertRowid } = addRow.run(d.backendId, d.sessionId, d.messageId, d.role, d.createdAt);
        // The same bounded prefix as on PostgreSQL (../search/indexed-text.ts).
        addText.run(lastInsertRowid, indexedPrefix(d.text));
      }
    })();
  }

  putSearchSession(backendId: string, sessionId: string, title: string, updatedAt: number): void {
    this.db
      .prepare(
        `INSERT INTO search_sessions (backend_id, session_id, title, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(backend_id, session_id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at`,
      )
      .run(backendId, sessionId, title, updatedAt);
  }

  searchSessionUpdatedAt(backendId: string, sessionId: string): number | undefined {
    const row = this.db
      .prepare("SELECT updated_at FROM search_sessions WHERE backend_id = ? AND session_id = ?")
      .get(backendId, sessionId) as { updated_at: number } | undefined;
    return row?.updated_at;
  }

  searchSessionIds(backendId: string): string[] {
    return (
      this.db.prepare("SELECT session_id FROM search_sessions WHERE backend_id = ?").all(backendId) as {
        session_id: string;
      }[]
    ).map((r) => r.session_id);
  }

  deleteSearchSession(backendId: string, sessionId?: string): void {
    const where = sessionId === undefined ? "backend_id = ?" : "backend_id = ? AND session_id = ?";
    const args = sessionId === undefined ? [backendId] : [backendId, sessionId];
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_rows WHERE ${where})`).run(...args);
      this.db.prepare(`DELETE FROM search_rows WHERE ${where}`).run(...args);
      this.db.prepare(`DELETE FROM search_sessions WHERE ${where}`).run(...args);
    })();
  }

  searchCounts(): { backendId: string; sessions: number; messages: number }[] {
    return this.db
      .prepare(
        `SELECT s.backend_id AS backendId, COUNT(*) AS sessions,
           (SELECT COUNT(*) FROM search_rows r WHERE r.backend_id = s.backend_id) AS messages
         FROM search_sessions s GROUP BY s.backend_id ORDER BY s.backend_id`,
      )
      .all() as { backendId: string; sessions: number; messages: number }[];
  }

  search(match: string, q: { backendId?: string; limit: number; offset: number }): StoredSearchHit[] {
    const rows = this.db
      .prepare(
        `SELECT r.backend_id, r.session_id, r.message_id, r.role, r.created_at, COALESCE(s.title, '') AS title,
           snippet(search_fts, 0, char(2), char(3), '…', 24) AS snip
         FROM search_fts
         JOIN search_rows r ON r.id = search_fts.rowid
         LEFT JOIN search_sessions s ON s.backend_id = r.backend_id AND s.session_id = r.session_id
         WHERE search_fts MATCH ? ${q.backendId !== undefined ? "AND r.backend_id = ?" : ""}
         ORDER BY rank, r.created_at DESC
         LIMIT ? OFFSET ?`,
      )
      .all(match, ...(q.backendId !== undefined ? [q.backendId] : []), q.limit, q.offset) as {
      backend_id: string;
      session_id: string;
      message_id: string;
      role: StoredSearchHit["role"];
      created_at: number;
      title: string;
      snip: string;
    }[];
    return rows.map((r) => ({
      backendId: r.backend_id,
      sessionId: r.session_id,
      sessionTitle: r.title,
      messageId: r.message_id,
      role: r.role,
      createdAt: r.created_at,
      ...markedSnippet(r.snip),
    }));
  }

  /**
   * Everything this store holds, table by table, for `npm run store:copy` (server/store/copy-store.ts):
   * the rows as the store's own readers give them, transcripts one at a time.
   */
  *exportAll(): Generator<StoreItem> {
    for (const b of this.listBackends()) yield { kind: "backend", value: b };
    for (const r of this.db.prepare("SELECT key, value FROM meta ORDER BY key").all() as {
      key: string;
      value: string;
    }[])
      yield { kind: "meta", key: r.key, value: r.value };
    for (const sh of this.listShares()) {
      const frozen = this.frozenSnapshot(sh.id);
      yield { kind: "share", value: sh, ...(frozen !== undefined ? { frozen } : {}) };
    }
    for (const p of this.listRedactionPatterns()) yield { kind: "redaction", value: p };
    for (const r of this.db.prepare("SELECT * FROM session_forks ORDER BY created_at").all() as ForkRow[])
      yield { kind: "fork", value: toFork(r) };
    for (const r of this.db
      .prepare("SELECT * FROM transcripts ORDER BY backend_id, session_id")
      .iterate() as IterableIterator<TranscriptRow>) {
      const t = toTranscript(r);
      if (t) yield { kind: "transcript", value: t };
    }
    const sessions = this.db.prepare("SELECT backend_id, session_id, title, updated_at FROM search_sessions").all() as {
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
    const docs = this.db
      .prepare(
        `SELECT r.backend_id, r.session_id, r.message_id, r.role, r.created_at, f.text
         FROM search_rows r JOIN search_fts f ON f.rowid = r.id ORDER BY r.id`,
      )
      .iterate() as IterableIterator<{
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

/** A snippet whose found words FTS5 wrapped in \x02…\x03: plain text and the words' ranges. */
export function markedSnippet(marked: string): { snippet: string; matches: [number, number][] } {
  let snippet = "";
  const matches: [number, number][] = [];
  let start = -1;
  for (const ch of marked) {
    if (ch === "\u0002") start = snippet.length;
    else if (ch === "\u0003") {
      if (start >= 0) matches.push([start, snippet.length]);
      start = -1;
    } else snippet += ch;
  }
  return { snippet, matches };
}
