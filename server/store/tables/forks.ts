import "server-only";
import type { ForkRecord } from "../store";
import { all, get, notify, type Program, run, type Schema } from "./program";

/** Session lineage: forks made through the console (OpenCode's fork records no parent). */
const TABLE = (time: string) => `CREATE TABLE session_forks (
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     source_session_id TEXT NOT NULL,
     source_message_id TEXT,
     created_at ${time} NOT NULL,
     PRIMARY KEY (backend_id, session_id)
   );
   CREATE INDEX session_forks_source ON session_forks (backend_id, source_session_id);`;

export const schema: Schema = { sqlite: { 2: TABLE("INTEGER") }, postgres: { 1: TABLE("BIGINT") } };

export const COLUMNS = "backend_id, session_id, source_session_id, source_message_id, created_at";
/** Oldest first. */
export const ORDER = "created_at, session_id";

interface Row {
  backend_id: string;
  session_id: string;
  source_session_id: string;
  source_message_id: string | null;
  created_at: number;
}

export const toFork = (r: Row): ForkRecord => ({
  backendId: r.backend_id,
  sessionId: r.session_id,
  sourceSessionId: r.source_session_id,
  ...(r.source_message_id ? { sourceMessageId: r.source_message_id } : {}),
  createdAt: r.created_at,
});

export const programs = {
  *putFork(f: ForkRecord): Program<void> {
    yield* run(
      `INSERT INTO session_forks (${COLUMNS}) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (backend_id, session_id) DO UPDATE SET source_session_id = excluded.source_session_id,
         source_message_id = excluded.source_message_id`,
      f.backendId,
      f.sessionId,
      f.sourceSessionId,
      f.sourceMessageId ?? null,
      f.createdAt,
    );
    yield* notify("session_forks");
  },
  *getFork(backendId: string, sessionId: string): Program<ForkRecord | undefined> {
    const row = yield* get<Row>(
      `SELECT ${COLUMNS} FROM session_forks WHERE backend_id = ? AND session_id = ?`,
      backendId,
      sessionId,
    );
    return row ? toFork(row) : undefined;
  },
  *listForks(backendId: string, sourceSessionId: string): Program<ForkRecord[]> {
    const rows = yield* all<Row>(
      `SELECT ${COLUMNS} FROM session_forks WHERE backend_id = ? AND source_session_id = ? ORDER BY ${ORDER}`,
      backendId,
      sourceSessionId,
    );
    return rows.map(toFork);
  },
  *deleteFork(backendId: string, sessionId: string): Program<void> {
    yield* run(
      "DELETE FROM session_forks WHERE backend_id = ? AND (session_id = ? OR source_session_id = ?)",
      backendId,
      sessionId,
      sessionId,
    );
    yield* notify("session_forks");
  },
};

/** Every fork record, oldest first (the export). */
export function* allForks(): Program<ForkRecord[]> {
  return (yield* all<Row>(`SELECT ${COLUMNS} FROM session_forks ORDER BY ${ORDER}`)).map(toFork);
}
