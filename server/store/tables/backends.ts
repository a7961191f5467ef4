import "server-only";
import { BackendDefinition } from "@/lib/api";
import { log } from "../../log";
import type { StoredBackend } from "../store";
import { all, jsonColumn, notify, type Program, run, type Schema } from "./program";

/** Backends the console was given (a definition each), oldest first. */
export const schema: Schema = {
  sqlite: {
    1: `CREATE TABLE backends (
     id TEXT PRIMARY KEY,
     definition TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );`,
  },
  postgres: {
    1: "CREATE TABLE backends (id TEXT PRIMARY KEY, definition JSONB NOT NULL, created_at BIGINT NOT NULL);",
  },
};

export const COLUMNS = "id, definition, created_at";
const ORDER = "created_at, id";

interface Row {
  id: string;
  /** Text in SQLite, parsed JSONB in PostgreSQL. */
  definition: unknown;
  created_at: number;
}

function toBackend(r: Row): StoredBackend[] {
  const parsed = BackendDefinition.safeParse(jsonColumn(r.definition));
  if (!parsed.success) {
    log.warn("ignoring stored backend with an invalid definition", { id: r.id });
    return [];
  }
  return [{ id: r.id, def: parsed.data, createdAt: r.created_at }];
}

export const programs = {
  *listBackends(): Program<StoredBackend[]> {
    return (yield* all<Row>(`SELECT ${COLUMNS} FROM backends ORDER BY ${ORDER}`)).flatMap(toBackend);
  },
  /** An update keeps the creation time. */
  *putBackend(b: StoredBackend): Program<void> {
    yield* run(
      `INSERT INTO backends (${COLUMNS}) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET definition = excluded.definition`,
      b.id,
      JSON.stringify(b.def),
      b.createdAt,
    );
    yield* notify("backends");
  },
  *deleteBackend(id: string): Program<boolean> {
    const n = yield* run("DELETE FROM backends WHERE id = ?", id);
    yield* notify("backends");
    return n > 0;
  },
};
