import "server-only";
import type { StoredRedactionPattern } from "../store";
import { all, notify, type Program, run, type Schema } from "./program";

/** The redaction patterns every share applies, in creation order. */
const TABLE = (time: string, flag: string) => `CREATE TABLE redaction_patterns (
     id TEXT PRIMARY KEY,
     label TEXT NOT NULL,
     pattern TEXT NOT NULL,
     is_regex ${flag} NOT NULL,
     created_at ${time} NOT NULL
   );`;

export const schema: Schema = {
  sqlite: { 3: TABLE("INTEGER", "INTEGER") },
  postgres: { 1: TABLE("BIGINT", "BOOLEAN") },
};

export const COLUMNS = "id, label, pattern, is_regex, created_at";
/** In creation order. */
const ORDER = "created_at, id";

/** `is_regex` is 0/1 in SQLite, a boolean in PostgreSQL. */
type Row = Omit<StoredRedactionPattern, "regex" | "createdAt"> & { is_regex: number | boolean; created_at: number };

export const programs = {
  *listRedactionPatterns(): Program<StoredRedactionPattern[]> {
    const rows = yield* all<Row>(`SELECT ${COLUMNS} FROM redaction_patterns ORDER BY ${ORDER}`);
    return rows.map((r) => ({
      id: r.id,
      label: r.label,
      pattern: r.pattern,
      regex: Boolean(r.is_regex),
      createdAt: r.created_at,
    }));
  },
  *insertRedactionPattern(p: StoredRedactionPattern): Program<void> {
    yield* run(
      `INSERT INTO redaction_patterns (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`,
      p.id,
      p.label,
      p.pattern,
      p.regex,
      p.createdAt,
    );
    yield* notify("redaction_patterns");
  },
  *deleteRedactionPattern(id: string): Program<boolean> {
    const n = yield* run("DELETE FROM redaction_patterns WHERE id = ?", id);
    yield* notify("redaction_patterns");
    return n > 0;
  },
};
