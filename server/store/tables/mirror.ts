import "server-only";
import { all, atomic, type Program, run, type Value } from "./program";

/**
 * A table copied whole from one store to another (a replica's copy in memory of PostgreSQL's shared
 * tables, ../cached-store.ts), optionally one backend's rows.
 */
export interface Slice {
  table: string;
  columns: string;
  backendId?: string;
}

const where = (s: Slice) => (s.backendId !== undefined ? " WHERE backend_id = ?" : "");
const args = (s: Slice) => (s.backendId !== undefined ? [s.backendId] : []);

export function* readSlice(s: Slice): Program<Record<string, unknown>[]> {
  return yield* all<Record<string, unknown>>(`SELECT ${s.columns} FROM ${s.table}${where(s)}`, ...args(s));
}

/** A column's value as it is written again: PostgreSQL's JSONB comes parsed, and goes back as text. */
function asValue(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (typeof v === "object") return JSON.stringify(v);
  return v as Value;
}

/** Replaces the slice's rows with `rows` (as `readSlice` read them), in one transaction. */
export function* replaceSlice(s: Slice, rows: Record<string, unknown>[]): Program<void> {
  const names = s.columns.split(",").map((c) => c.trim());
  const insert = `INSERT INTO ${s.table} (${s.columns}) VALUES (${names.map(() => "?").join(", ")})`;
  yield* atomic(
    (function* () {
      yield* run(`DELETE FROM ${s.table}${where(s)}`, ...args(s));
      for (const r of rows) yield* run(insert, ...names.map((n) => asValue(r[n])));
    })(),
  );
}
