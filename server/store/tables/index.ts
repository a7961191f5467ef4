import "server-only";
import type { Store } from "../store";
import * as audit from "./audit";
import * as backends from "./backends";
import * as forks from "./forks";
import * as meta from "./meta";
import type { Engine, Program } from "./program";
import * as redaction from "./redaction";
import * as search from "./search";
import * as shares from "./shares";
import * as transcripts from "./transcripts";

/** Every store call (`Store` but `close`) as a program both engines run. */
export type Calls = Omit<Store, "close">;
export type StorePrograms = {
  [K in keyof Calls]: (...args: Parameters<Calls[K]>) => Program<ReturnType<Calls[K]>>;
};

const TABLES = [backends, meta, forks, shares, redaction, transcripts, search, audit];

export const PROGRAMS: StorePrograms = {
  ...backends.programs,
  ...meta.programs,
  ...forks.programs,
  ...shares.programs,
  ...redaction.programs,
  ...transcripts.programs,
  ...search.programs,
  ...audit.programs,
};

/**
 * An engine's versioned migrations, gathered from the tables: migration `v` is every table's
 * version-`v` statements (SQLite counts in `user_version`, PostgreSQL in `schema_version`).
 */
export function migrations(on: Engine): string[] {
  const last = Math.max(...TABLES.flatMap((t) => Object.keys(t.schema[on]).map(Number)));
  return Array.from({ length: last }, (_, i) => TABLES.flatMap((t) => t.schema[on][i + 1] ?? []).join("\n   "));
}

/** The tables every replica keeps a copy of and announces its writes to (NOTIFY), with the columns copied. */
export const SHARED = {
  backends: backends.COLUMNS,
  meta: meta.COLUMNS,
  shares: shares.COLUMNS,
  redaction_patterns: redaction.COLUMNS,
  session_forks: forks.COLUMNS,
} as const;
export type SharedTable = keyof typeof SHARED;
export const TRANSCRIPT_COLUMNS = transcripts.COLUMNS;
