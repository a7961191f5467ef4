import "server-only";
import pg from "pg";
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
  POSTGRES_AUDIT_MIGRATION,
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
import type { AsyncStore } from "./async-store";
import { markedSnippet } from "./sqlite-store";
import type {
  ForkRecord,
  SearchDocument,
  StoredBackend,
  StoredRedactionPattern,
  StoredSearchHit,
  StoredShare,
  StoredTranscript,
} from "./store";

/** The channel every write is announced on (its payload: the table), for the replicas' caches. */
export const CHANGES_CHANNEL = "switchboard_changes";

/**
 * Versioned migrations, applied in order at start-up under an advisory lock (two replicas starting
 * at once apply each one once); never edit one that has shipped. Times are epoch milliseconds.
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE backends (id TEXT PRIMARY KEY, definition JSONB NOT NULL, created_at BIGINT NOT NULL);
   CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE session_forks (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     source_session_id TEXT NOT NULL,
     source_message_id TEXT,
     created_at BIGINT NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );
   CREATE INDEX session_forks_source ON session_forks (backend_id, source_session_id);
   CREATE TABLE shares (
     id TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL UNIQUE,
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     session_title TEXT NOT NULL,
     up_to_message_id TEXT,
     up_to_created_at BIGINT,
     live BOOLEAN NOT NULL,
     include_tool_output BOOLEAN NOT NULL,
     created_at BIGINT NOT NULL,
     expires_at BIGINT,
     revoked_at BIGINT,
     last_access_at BIGINT,
     access_count BIGINT NOT NULL DEFAULT 0,
     frozen_snapshot TEXT
   );
   CREATE INDEX shares_session ON shares (backend_id, session_id);
   CREATE TABLE redaction_patterns (
     id TEXT PRIMARY KEY,
     label TEXT NOT NULL,
     pattern TEXT NOT NULL,
     is_regex BOOLEAN NOT NULL,
     created_at BIGINT NOT NULL
   );
   CREATE TABLE transcripts (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     session TEXT NOT NULL,
     messages TEXT,
     todos TEXT,
     agent_session_id TEXT,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );
   CREATE INDEX transcripts_by_backend ON transcripts (backend_id, updated_at DESC);
   CREATE TABLE search_rows (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     message_id TEXT NOT NULL,
     role TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     text TEXT NOT NULL,
     tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
     PRIMARY KEY (backend_id, session_id, message_id)
   );
   CREATE INDEX search_rows_tsv ON search_rows USING GIN (tsv);
   CREATE TABLE search_sessions (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     title TEXT NOT NULL,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );`,
  // 2: the audit log (issue 44)
  POSTGRES_AUDIT_MIGRATION,
  // 3: who made each share (issue 44)
  `ALTER TABLE shares ADD COLUMN created_by_id TEXT;
   ALTER TABLE shares ADD COLUMN created_by_name TEXT;`,
];

/** BIGINT (oid 20) as a number: every BIGINT here is epoch milliseconds or a count. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * `ftsQuery`'s expression (quoted words, the last one a prefix: `"foo" "ba"*`) as a tsquery: every
 * word must match, the last as a prefix. Only letters, digits and marks reach here; quotes are
 * doubled all the same.
 */
export function tsQuery(match: string): string | undefined {
  const terms = [...match.matchAll(/"([^"]*)"(\*)?/g)].flatMap((m) =>
    m[1] ? [`'${m[1].replace(/'/g, "''")}'${m[2] ? ":*" : ""}`] : [],
  );
  return terms.length ? terms.join(" & ") : undefined;
}

const HEADLINE =
  "StartSel=\u0002, StopSel=\u0003, MaxWords=24, MinWords=8, ShortWord=0, MaxFragments=1, FragmentDelimiter=…";

/** The store on PostgreSQL (`SWITCHBOARD_DATABASE_URL`), through `pg`'s pool. */
export class PostgresStore implements AsyncStore {
  private constructor(private pool: pg.Pool) {}

  /** Connects and applies the migrations this build has and the database does not. */
  static async open(url: string, opts: { max?: number } = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, types });
    pool.on("error", (err) => log.warn("PostgreSQL connection failed", { error: err.message }));
    const store = new PostgresStore(pool);
    await store.migrate();
    return store;
  }

  private async migrate(): Promise<void> {
    const c = await this.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query("SELECT pg_advisory_xact_lock(hashtext('switchboard-migrations'))");
      await c.query("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
      const r = await c.query<{ version: number }>("SELECT version FROM schema_version");
      let current = r.rows[0]?.version ?? 0;
      if (r.rows.length === 0) await c.query("INSERT INTO schema_version (version) VALUES (0)");
      for (; current < MIGRATIONS.length; current++) {
        await c.query(MIGRATIONS[current]!);
        await c.query("UPDATE schema_version SET version = $1", [current + 1]);
        log.info("applied store migration", { version: current + 1, engine: "postgresql" });
      }
      await c.query("COMMIT");
    } catch (err) {
      await c.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  /** Announces a write to every replica's cache (`LISTEN switchboard_changes`). */
  private async changed(table: string): Promise<void> {
    await this.pool.query("SELECT pg_notify($1, $2)", [CHANGES_CHANNEL, table]);
  }

  /**
   * Calls `onChange(table)` for every write announced by any replica (this one's too), from a
   * connection of its own; the returned function stops listening.
   */
  async listen(onChange: (table: string) => void): Promise<() => Promise<void>> {
    const c = await this.pool.connect();
    const handler = (n: pg.Notification) => {
      if (n.channel === CHANGES_CHANNEL && n.payload) onChange(n.payload);
    };
    c.on("notification", handler);
    await c.query(`LISTEN ${CHANGES_CHANNEL}`);
    return async () => {
      c.off("notification", handler);
      await c.query(`UNLISTEN ${CHANGES_CHANNEL}`).catch(() => undefined);
      c.release();
    };
  }

  private async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query("BEGIN");
      const out = await fn(c);
      await c.query("COMMIT");
      return out;
    } catch (err) {
      await c.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  /* ------------------------------------------------------------------ backends and meta */

  async listBackends(): Promise<StoredBackend[]> {
    const r = await this.pool.query<{ id: string; definition: unknown; created_at: number }>(
      "SELECT id, definition, created_at FROM backends ORDER BY created_at, id",
    );
    return r.rows.flatMap((row) => {
      const parsed = BackendDefinition.safeParse(row.definition);
      if (!parsed.success) {
        log.warn("ignoring stored backend with an invalid definition", { id: row.id });
        return [];
      }
      return [{ id: row.id, def: parsed.data, createdAt: row.created_at }];
    });
  }

  async putBackend(b: StoredBackend): Promise<void> {
    await this.pool.query(
      `INSERT INTO backends (id, definition, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET definition = EXCLUDED.definition`,
      [b.id, JSON.stringify(b.def), b.createdAt],
    );
    await this.changed("backends");
  }

  async deleteBackend(id: string): Promise<boolean> {
    const r = await this.pool.query("DELETE FROM backends WHERE id = $1", [id]);
    await this.changed("backends");
    return (r.rowCount ?? 0) > 0;
  }

  async getMeta(key: string): Promise<string | undefined> {
    const r = await this.pool.query<{ value: string }>("SELECT value FROM meta WHERE key = $1", [key]);
    return r.rows[0]?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.pool.query(
      "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
      [key, value],
    );
    await this.changed("meta");
  }

  async deleteMeta(key: string): Promise<boolean> {
    const r = await this.pool.query("DELETE FROM meta WHERE key = $1", [key]);
    await this.changed("meta");
    return (r.rowCount ?? 0) > 0;
  }

  /* ------------------------------------------------------------------ shares */

  async insertShare(s: StoredShare, frozen?: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO shares (${SHARE_COLUMNS}, frozen_snapshot)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
      [
        s.id,
        s.tokenHash,
        s.backendId,
        s.sessionId,
        s.sessionTitle,
        s.upToMessageId ?? null,
        s.upToCreatedAt ?? null,
        s.live,
        s.includeToolOutput,
        s.createdAt,
        s.expiresAt,
        s.revokedAt ?? null,
        s.lastAccessAt ?? null,
        s.accessCount,
        s.createdBy?.id ?? null,
        s.createdBy?.name ?? null,
        frozen ?? null,
      ],
    );
    await this.changed("shares");
  }

  async getShare(id: string): Promise<StoredShare | undefined> {
    const r = await this.pool.query<ShareRow>(`SELECT ${SHARE_COLUMNS} FROM shares WHERE id = $1`, [id]);
    return r.rows[0] ? shareFromRow(r.rows[0]) : undefined;
  }

  async shareByTokenHash(hash: string): Promise<StoredShare | undefined> {
    const r = await this.pool.query<ShareRow>(`SELECT ${SHARE_COLUMNS} FROM shares WHERE token_hash = $1`, [hash]);
    return r.rows[0] ? shareFromRow(r.rows[0]) : undefined;
  }

  async listShares(): Promise<StoredShare[]> {
    const r = await this.pool.query<ShareRow>(`SELECT ${SHARE_COLUMNS} FROM shares ORDER BY created_at DESC, id`);
    return r.rows.map(shareFromRow);
  }

  async frozenSnapshot(id: string): Promise<string | undefined> {
    const r = await this.pool.query<{ frozen_snapshot: string | null }>(
      "SELECT frozen_snapshot FROM shares WHERE id = $1",
      [id],
    );
    return r.rows[0]?.frozen_snapshot ?? undefined;
  }

  async revokeShare(id: string, at: number): Promise<boolean> {
    const r = await this.pool.query(
      "UPDATE shares SET revoked_at = $1, frozen_snapshot = NULL WHERE id = $2 AND revoked_at IS NULL",
      [at, id],
    );
    await this.changed("shares");
    return (r.rowCount ?? 0) > 0;
  }

  async dropFrozenSnapshot(id: string): Promise<void> {
    await this.pool.query("UPDATE shares SET frozen_snapshot = NULL WHERE id = $1 AND frozen_snapshot IS NOT NULL", [
      id,
    ]);
  }

  async touchShare(id: string, at: number, count: number): Promise<void> {
    await this.pool.query("UPDATE shares SET last_access_at = $1, access_count = access_count + $2 WHERE id = $3", [
      at,
      count,
      id,
    ]);
  }

  /* ------------------------------------------------------------------ redaction patterns */

  async listRedactionPatterns(): Promise<StoredRedactionPattern[]> {
    const r = await this.pool.query<{
      id: string;
      label: string;
      pattern: string;
      is_regex: boolean;
      created_at: number;
    }>("SELECT id, label, pattern, is_regex, created_at FROM redaction_patterns ORDER BY created_at, id");
    return r.rows.map((row) => ({
      id: row.id,
      label: row.label,
      pattern: row.pattern,
      regex: row.is_regex,
      createdAt: row.created_at,
    }));
  }

  async insertRedactionPattern(p: StoredRedactionPattern): Promise<void> {
    await this.pool.query(
      "INSERT INTO redaction_patterns (id, label, pattern, is_regex, created_at) VALUES ($1, $2, $3, $4, $5)",
      [p.id, p.label, p.pattern, p.regex, p.createdAt],
    );
    await this.changed("redaction_patterns");
  }

  async deleteRedactionPattern(id: string): Promise<boolean> {
    const r = await this.pool.query("DELETE FROM redaction_patterns WHERE id = $1", [id]);
    await this.changed("redaction_patterns");
    return (r.rowCount ?? 0) > 0;
  }

  /* ------------------------------------------------------------------ forks */

  async putFork(f: ForkRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO session_forks (backend_id, session_id, source_session_id, source_message_id, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (backend_id, session_id) DO UPDATE SET source_session_id = EXCLUDED.source_session_id,
         source_message_id = EXCLUDED.source_message_id`,
      [f.backendId, f.sessionId, f.sourceSessionId, f.sourceMessageId ?? null, f.createdAt],
    );
    await this.changed("session_forks");
  }

  async getFork(backendId: string, sessionId: string): Promise<ForkRecord | undefined> {
    const r = await this.pool.query<ForkRow>("SELECT * FROM session_forks WHERE backend_id = $1 AND session_id = $2", [
      backendId,
      sessionId,
    ]);
    return r.rows[0] ? toFork(r.rows[0]) : undefined;
  }

  async listForks(backendId: string, sourceSessionId: string): Promise<ForkRecord[]> {
    const r = await this.pool.query<ForkRow>(
      "SELECT * FROM session_forks WHERE backend_id = $1 AND source_session_id = $2 ORDER BY created_at, session_id",
      [backendId, sourceSessionId],
    );
    return r.rows.map(toFork);
  }

  async deleteFork(backendId: string, sessionId: string): Promise<void> {
    await this.pool.query(
      "DELETE FROM session_forks WHERE backend_id = $1 AND (session_id = $2 OR source_session_id = $2)",
      [backendId, sessionId],
    );
    await this.changed("session_forks");
  }

  /* ------------------------------------------------------------------ transcripts */

  async getTranscript(backendId: string, sessionId: string): Promise<StoredTranscript | undefined> {
    const r = await this.pool.query<TranscriptRow>(
      "SELECT * FROM transcripts WHERE backend_id = $1 AND session_id = $2",
      [backendId, sessionId],
    );
    return r.rows[0] ? toTranscript(r.rows[0]) : undefined;
  }

  async listTranscripts(backendId: string, limit = 1000): Promise<StoredTranscript[]> {
    const r = await this.pool.query<TranscriptRow>(
      `SELECT backend_id, session_id, session, todos, agent_session_id, updated_at FROM transcripts
       WHERE backend_id = $1 ORDER BY updated_at DESC, session_id LIMIT $2`,
      [backendId, limit],
    );
    return r.rows.flatMap((row) => toTranscript(row) ?? []);
  }

  async putTranscript(t: StoredTranscript): Promise<void> {
    await this.pool.query(
      `INSERT INTO transcripts (backend_id, session_id, session, messages, todos, agent_session_id, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (backend_id, session_id) DO UPDATE SET session = EXCLUDED.session, messages = EXCLUDED.messages,
         todos = EXCLUDED.todos, agent_session_id = EXCLUDED.agent_session_id, updated_at = EXCLUDED.updated_at`,
      [
        t.backendId,
        t.sessionId,
        JSON.stringify(t.session),
        t.messages ? JSON.stringify(t.messages) : null,
        t.todos ? JSON.stringify(t.todos) : null,
        t.agentSessionId ?? null,
        t.updatedAt,
      ],
    );
  }

  async deleteTranscript(backendId: string, sessionId: string): Promise<void> {
    await this.pool.query("DELETE FROM transcripts WHERE backend_id = $1 AND session_id = $2", [backendId, sessionId]);
  }

  async deleteTranscripts(backendId: string): Promise<void> {
    await this.pool.query("DELETE FROM transcripts WHERE backend_id = $1", [backendId]);
  }

  /* ------------------------------------------------------------------ search */

  async putSearchDocuments(docs: SearchDocument[]): Promise<void> {
    if (!docs.length) return;
    await this.transaction(async (c) => {
      for (const d of docs) {
        if (!d.text.trim()) {
          await c.query("DELETE FROM search_rows WHERE backend_id = $1 AND session_id = $2 AND message_id = $3", [
            d.backendId,
            d.sessionId,
            d.messageId,
          ]);
          continue;
        }
        await c.query(
          `INSERT INTO search_rows (backend_id, session_id, message_id, role, created_at, text) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (backend_id, session_id, message_id) DO UPDATE SET role = EXCLUDED.role,
             created_at = EXCLUDED.created_at, text = EXCLUDED.text`,
          // A bounded prefix: over 1 MiB a tsvector fails the insert (../search/indexed-text.ts).
          [d.backendId, d.sessionId, d.messageId, d.role, d.createdAt, indexedPrefix(d.text)],
        );
      }
    });
  }

  async putSearchSession(backendId: string, sessionId: string, title: string, updatedAt: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO search_sessions (backend_id, session_id, title, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (backend_id, session_id) DO UPDATE SET title = EXCLUDED.title, updated_at = EXCLUDED.updated_at`,
      [backendId, sessionId, title, updatedAt],
    );
  }

  async searchSessionUpdatedAt(backendId: string, sessionId: string): Promise<number | undefined> {
    const r = await this.pool.query<{ updated_at: number }>(
      "SELECT updated_at FROM search_sessions WHERE backend_id = $1 AND session_id = $2",
      [backendId, sessionId],
    );
    return r.rows[0]?.updated_at;
  }

  async searchSessionIds(backendId: string): Promise<string[]> {
    const r = await this.pool.query<{ session_id: string }>(
      "SELECT session_id FROM search_sessions WHERE backend_id = $1 ORDER BY session_id",
      [backendId],
    );
    return r.rows.map((row) => row.session_id);
  }

  async deleteSearchSession(backendId: string, sessionId?: string): Promise<void> {
    const where = sessionId === undefined ? "backend_id = $1" : "backend_id = $1 AND session_id = $2";
    const args = sessionId === undefined ? [backendId] : [backendId, sessionId];
    await this.transaction(async (c) => {
      await c.query(`DELETE FROM search_rows WHERE ${where}`, args);
      await c.query(`DELETE FROM search_sessions WHERE ${where}`, args);
    });
  }

  async searchCounts(): Promise<{ backendId: string; sessions: number; messages: number }[]> {
    const r = await this.pool.query<{ backendId: string; sessions: number; messages: number }>(
      `SELECT s.backend_id AS "backendId", COUNT(*)::int AS sessions,
         (SELECT COUNT(*)::int FROM search_rows r WHERE r.backend_id = s.backend_id) AS messages
       FROM search_sessions s GROUP BY s.backend_id ORDER BY s.backend_id`,
    );
    return r.rows;
  }

  /** `match` is `ftsQuery`'s expression (server/search/query.ts); see `tsQuery`. */
  async search(match: string, q: { backendId?: string; limit: number; offset: number }): Promise<StoredSearchHit[]> {
    const query = tsQuery(match);
    if (!query) return [];
    const byBackend = q.backendId !== undefined;
    const r = await this.pool.query<{
      backend_id: string;
      session_id: string;
      message_id: string;
      role: StoredSearchHit["role"];
      created_at: number;
      title: string;
      snip: string;
    }>(
      `SELECT r.backend_id, r.session_id, r.message_id, r.role, r.created_at, COALESCE(s.title, '') AS title,
         ts_headline('simple', r.text, tq, $2) AS snip
       FROM search_rows r
       CROSS JOIN to_tsquery('simple', $1) AS tq
       LEFT JOIN search_sessions s ON s.backend_id = r.backend_id AND s.session_id = r.session_id
       WHERE r.tsv @@ tq ${byBackend ? "AND r.backend_id = $5" : ""}
       ORDER BY ts_rank(r.tsv, tq) DESC, r.created_at DESC
       LIMIT $3 OFFSET $4`,
      [query, HEADLINE, q.limit, q.offset, ...(byBackend ? [q.backendId] : [])],
    );
    return r.rows.map((row) => ({
      backendId: row.backend_id,
      sessionId: row.session_id,
      sessionTitle: row.title,
      messageId: row.message_id,
      role: row.role,
      createdAt: row.created_at,
      ...markedSnippet(row.snip),
    }));
  }

  /* ------------------------------------------------------------------ whole tables (CachedStore) */

  /** Every setting (the cache holds them all: ACP credentials and A2A profiles are keyed per backend), or those whose key starts with `prefix`. */
  async listMeta(prefix = ""): Promise<[string, string][]> {
    const r = await this.pool.query<{ key: string; value: string }>(
      "SELECT key, value FROM meta WHERE left(key, length($1)) = $1 ORDER BY key",
      [prefix],
    );
    return r.rows.map((row) => [row.key, row.value]);
  }

  /** Every fork record, oldest first (the session list decorates every session with its lineage). */
  async listAllForks(): Promise<ForkRecord[]> {
    const r = await this.pool.query<ForkRow>("SELECT * FROM session_forks ORDER BY created_at, session_id");
    return r.rows.map(toFork);
  }

  /** Every kept transcript of the given backends, messages included (their owner's working copy). */
  async loadTranscripts(backendIds?: readonly string[]): Promise<StoredTranscript[]> {
    const r = backendIds
      ? await this.pool.query<TranscriptRow>("SELECT * FROM transcripts WHERE backend_id = ANY($1)", [backendIds])
      : await this.pool.query<TranscriptRow>("SELECT * FROM transcripts");
    return r.rows.flatMap((row) => toTranscript(row) ?? []);
  }

  async appendAudit(e: Omit<AuditEntry, "id">): Promise<void> {
    await this.pool.query(
      `INSERT INTO audit_log (${AUDIT_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      auditValues(e),
    );
  }

  async listAudit(q: AuditQuery): Promise<AuditEntry[]> {
    const { where, values } = auditWhere(q, (i) => `$${i}`);
    const r = await this.pool.query<AuditRow>(
      `SELECT * FROM audit_log ${where} ORDER BY id DESC LIMIT $${values.length + 1}`,
      [...values, q.limit],
    );
    return r.rows.flatMap(auditFromRow);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
