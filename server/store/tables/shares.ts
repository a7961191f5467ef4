import "server-only";
import type { StoredShare } from "../store";
import { all, get, notify, type Program, run, type Schema } from "./program";

/** Share links (issue 6): tokens are stored only as their SHA-256; a frozen share keeps its redacted snapshot. */
const TABLE = (time: string, flag: string) => `CREATE TABLE shares (
     id TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL UNIQUE,
     backend_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     session_title TEXT NOT NULL,
     up_to_message_id TEXT,
     up_to_created_at ${time},
     live ${flag} NOT NULL,
     include_tool_output ${flag} NOT NULL,
     created_at ${time} NOT NULL,
     expires_at ${time},
     revoked_at ${time},
     last_access_at ${time},
     access_count ${time} NOT NULL DEFAULT 0,
     frozen_snapshot TEXT
   );
   CREATE INDEX shares_session ON shares (backend_id, session_id);`;

/** Who made each share (issue 44). */
const CREATED_BY = `ALTER TABLE shares ADD COLUMN created_by_id TEXT;
   ALTER TABLE shares ADD COLUMN created_by_name TEXT;`;

export const schema: Schema = {
  sqlite: { 3: TABLE("INTEGER", "INTEGER"), 7: CREATED_BY },
  postgres: { 1: TABLE("BIGINT", "BOOLEAN"), 3: CREATED_BY },
};

/** Every column but the frozen snapshot. */
export const COLUMNS =
  "id, token_hash, backend_id, session_id, session_title, up_to_message_id, up_to_created_at, live, include_tool_output, created_at, expires_at, revoked_at, last_access_at, access_count, created_by_id, created_by_name";
/** Newest first. */
const ORDER = "created_at DESC, id";

interface Row {
  id: string;
  token_hash: string;
  backend_id: string;
  session_id: string;
  session_title: string;
  up_to_message_id: string | null;
  up_to_created_at: number | null;
  /** 0/1 in SQLite, a boolean in PostgreSQL. */
  live: number | boolean;
  include_tool_output: number | boolean;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_access_at: number | null;
  access_count: number;
  created_by_id: string | null;
  created_by_name: string | null;
}

function toShare(r: Row): StoredShare {
  return {
    id: r.id,
    tokenHash: r.token_hash,
    backendId: r.backend_id,
    sessionId: r.session_id,
    sessionTitle: r.session_title,
    ...(r.up_to_message_id !== null ? { upToMessageId: r.up_to_message_id } : {}),
    ...(r.up_to_created_at !== null ? { upToCreatedAt: r.up_to_created_at } : {}),
    live: Boolean(r.live),
    includeToolOutput: Boolean(r.include_tool_output),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    ...(r.revoked_at !== null ? { revokedAt: r.revoked_at } : {}),
    ...(r.last_access_at !== null ? { lastAccessAt: r.last_access_at } : {}),
    accessCount: r.access_count,
    ...(r.created_by_id ? { createdBy: { id: r.created_by_id, name: r.created_by_name ?? "" } } : {}),
  };
}

function* oneShare(where: string, value: string): Program<StoredShare | undefined> {
  const row = yield* get<Row>(`SELECT ${COLUMNS} FROM shares WHERE ${where} = ?`, value);
  return row ? toShare(row) : undefined;
}

export const programs = {
  *insertShare(s: StoredShare, frozen?: string): Program<void> {
    yield* run(
      `INSERT INTO shares (${COLUMNS}, frozen_snapshot) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    );
    yield* notify("shares");
  },
  getShare: (id: string) => oneShare("id", id),
  shareByTokenHash: (hash: string) => oneShare("token_hash", hash),
  *listShares(): Program<StoredShare[]> {
    return (yield* all<Row>(`SELECT ${COLUMNS} FROM shares ORDER BY ${ORDER}`)).map(toShare);
  },
  *frozenSnapshot(id: string): Program<string | undefined> {
    const row = yield* get<{ frozen_snapshot: string | null }>("SELECT frozen_snapshot FROM shares WHERE id = ?", id);
    return row?.frozen_snapshot ?? undefined;
  },
  *revokeShare(id: string, at: number): Program<boolean> {
    const n = yield* run(
      "UPDATE shares SET revoked_at = ?, frozen_snapshot = NULL WHERE id = ? AND revoked_at IS NULL",
      at,
      id,
    );
    yield* notify("shares");
    return n > 0;
  },
  *dropFrozenSnapshot(id: string): Program<void> {
    yield* run("UPDATE shares SET frozen_snapshot = NULL WHERE id = ? AND frozen_snapshot IS NOT NULL", id);
  },
  *touchShare(id: string, at: number, count: number): Program<void> {
    yield* run("UPDATE shares SET last_access_at = ?, access_count = access_count + ? WHERE id = ?", at, count, id);
  },
};
