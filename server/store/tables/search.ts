import "server-only";
import { indexedPrefix } from "../../search/indexed-text";
import type { SearchDocument, StoredSearchHit } from "../store";
import { all, atomic, engine, get, type Program, run, type Schema } from "./program";

/**
 * Full-text search over every session's messages (docs/search.md): one row per message and the
 * sessions' titles. SQLite keeps the text in an FTS5 table under the row's id; PostgreSQL in the row,
 * with a generated `tsvector`. Both index the same bounded prefix of a message (../search/indexed-text.ts).
 */
const SESSIONS = (time: string) => `CREATE TABLE search_sessions (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     title TEXT NOT NULL,
     updated_at ${time} NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );`;

export const schema: Schema = {
  sqlite: {
    5: `CREATE TABLE search_rows (
     id INTEGER PRIMARY KEY,
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     message_id TEXT NOT NULL,
     role TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     UNIQUE (backend_id, session_id, message_id)
   );
   CREATE VIRTUAL TABLE search_fts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
   ${SESSIONS("INTEGER")}`,
  },
  postgres: {
    1: `CREATE TABLE search_rows (
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
   ${SESSIONS("BIGINT")}`,
  },
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

/** A snippet whose found words are wrapped in \x02…\x03: plain text and the words' ranges. */
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

const HEADLINE =
  "StartSel=\u0002, StopSel=\u0003, MaxWords=24, MinWords=8, ShortWord=0, MaxFragments=1, FragmentDelimiter=…";

const HIT_COLUMNS = "r.backend_id, r.session_id, r.message_id, r.role, r.created_at, COALESCE(s.title, '') AS title";
const TITLE_JOIN = "LEFT JOIN search_sessions s ON s.backend_id = r.backend_id AND s.session_id = r.session_id";

/** Best matches first: each engine's own rank, then the newest. */
function hitsQuery(byBackend: boolean) {
  const backend = byBackend ? "AND r.backend_id = ?" : "";
  return {
    sqlite: `SELECT ${HIT_COLUMNS}, snippet(search_fts, 0, char(2), char(3), '…', 24) AS snip
       FROM search_fts JOIN search_rows r ON r.id = search_fts.rowid ${TITLE_JOIN}
       WHERE search_fts MATCH ? ${backend} ORDER BY rank, r.created_at DESC LIMIT ? OFFSET ?`,
    postgres: `SELECT ${HIT_COLUMNS}, ts_headline('simple', r.text, tq, ?) AS snip
       FROM search_rows r CROSS JOIN to_tsquery('simple', ?) AS tq ${TITLE_JOIN}
       WHERE r.tsv @@ tq ${backend} ORDER BY ts_rank(r.tsv, tq) DESC, r.created_at DESC LIMIT ? OFFSET ?`,
  };
}

interface HitRow {
  backend_id: string;
  session_id: string;
  message_id: string;
  role: StoredSearchHit["role"];
  created_at: number;
  title: string;
  snip: string;
}

const MESSAGE = "backend_id = ? AND session_id = ? AND message_id = ?";
/** SQLite's text of the rows a WHERE picks (PostgreSQL keeps it in the row). */
const dropText = (where: string) => ({
  sqlite: `DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_rows WHERE ${where})`,
  postgres: null,
});

export const programs = {
  /** Replaces the indexed text of each given message (an empty text removes the message). */
  *putSearchDocuments(docs: SearchDocument[]): Program<void> {
    if (!docs.length) return;
    const on = yield* engine();
    yield* atomic(
      (function* () {
        for (const d of docs) {
          const key = [d.backendId, d.sessionId, d.messageId];
          yield* run(dropText(MESSAGE), ...key);
          yield* run(`DELETE FROM search_rows WHERE ${MESSAGE}`, ...key);
          if (!d.text.trim()) continue;
          const text = indexedPrefix(d.text);
          const row = [...key, d.role, d.createdAt];
          if (on === "postgres")
            yield* run(
              "INSERT INTO search_rows (backend_id, session_id, message_id, role, created_at, text) VALUES (?, ?, ?, ?, ?, ?)",
              ...row,
              text,
            );
          else {
            yield* run(
              "INSERT INTO search_rows (backend_id, session_id, message_id, role, created_at) VALUES (?, ?, ?, ?, ?)",
              ...row,
            );
            yield* run("INSERT INTO search_fts (rowid, text) VALUES (last_insert_rowid(), ?)", text);
          }
        }
      })(),
    );
  },
  *putSearchSession(backendId: string, sessionId: string, title: string, updatedAt: number): Program<void> {
    yield* run(
      `INSERT INTO search_sessions (backend_id, session_id, title, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (backend_id, session_id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at`,
      backendId,
      sessionId,
      title,
      updatedAt,
    );
  },
  *searchSessionUpdatedAt(backendId: string, sessionId: string): Program<number | undefined> {
    const row = yield* get<{ updated_at: number }>(
      "SELECT updated_at FROM search_sessions WHERE backend_id = ? AND session_id = ?",
      backendId,
      sessionId,
    );
    return row?.updated_at;
  },
  /** By id. */
  *searchSessionIds(backendId: string): Program<string[]> {
    const rows = yield* all<{ session_id: string }>(
      "SELECT session_id FROM search_sessions WHERE backend_id = ? ORDER BY session_id",
      backendId,
    );
    return rows.map((r) => r.session_id);
  },
  *deleteSearchSession(backendId: string, sessionId?: string): Program<void> {
    const where = sessionId === undefined ? "backend_id = ?" : "backend_id = ? AND session_id = ?";
    const args = sessionId === undefined ? [backendId] : [backendId, sessionId];
    yield* atomic(
      (function* () {
        yield* run(dropText(where), ...args);
        yield* run(`DELETE FROM search_rows WHERE ${where}`, ...args);
        yield* run(`DELETE FROM search_sessions WHERE ${where}`, ...args);
      })(),
    );
  },
  /** By backend. */
  *searchCounts(): Program<{ backendId: string; sessions: number; messages: number }[]> {
    return yield* all<{ backendId: string; sessions: number; messages: number }>(
      `SELECT s.backend_id AS "backendId", COUNT(*) AS sessions,
         (SELECT COUNT(*) FROM search_rows r WHERE r.backend_id = s.backend_id) AS messages
       FROM search_sessions s GROUP BY s.backend_id ORDER BY s.backend_id`,
    );
  },
  /** `match` is `ftsQuery`'s expression (server/search/query.ts): FTS5 takes it as it is, PostgreSQL as `tsQuery`'s. */
  *search(match: string, q: { backendId?: string; limit: number; offset: number }): Program<StoredSearchHit[]> {
    const byBackend = q.backendId !== undefined ? [q.backendId] : [];
    const page = [...byBackend, q.limit, q.offset];
    let rows: HitRow[];
    if ((yield* engine()) === "sqlite") rows = yield* all<HitRow>(hitsQuery(byBackend.length > 0), match, ...page);
    else {
      const query = tsQuery(match);
      if (!query) return [];
      rows = yield* all<HitRow>(hitsQuery(byBackend.length > 0), HEADLINE, query, ...page);
    }
    return rows.map((r) => ({
      backendId: r.backend_id,
      sessionId: r.session_id,
      sessionTitle: r.title,
      messageId: r.message_id,
      role: r.role,
      createdAt: r.created_at,
      ...markedSnippet(r.snip),
    }));
  },
};

/** Every indexed message with its text, in the order it was indexed (SQLite's export). */
export const SQLITE_DOCUMENTS = `SELECT r.backend_id, r.session_id, r.message_id, r.role, r.created_at, f.text
   FROM search_rows r JOIN search_fts f ON f.rowid = r.id ORDER BY r.id`;
export const SEARCH_SESSIONS = "SELECT backend_id, session_id, title, updated_at FROM search_sessions";
