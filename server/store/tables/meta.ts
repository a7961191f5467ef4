import "server-only";
import { all, get, notify, type Program, run, type Schema } from "./program";

/** The console's settings (`meta`): a value per key, the stored secrets among them by their prefixes. */
export const schema: Schema = {
  sqlite: { 1: "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);" },
  postgres: { 1: "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);" },
};

export const COLUMNS = "key, value";

export const programs = {
  *getMeta(key: string): Program<string | undefined> {
    return (yield* get<{ value: string }>("SELECT value FROM meta WHERE key = ?", key))?.value;
  },
  *setMeta(key: string, value: string): Program<void> {
    yield* run(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
    yield* notify("meta");
  },
  *deleteMeta(key: string): Program<boolean> {
    const n = yield* run("DELETE FROM meta WHERE key = ?", key);
    yield* notify("meta");
    return n > 0;
  },
  /** By key; the prefix "" gives every setting. */
  *listMeta(prefix: string): Program<[string, string][]> {
    const rows = yield* all<{ key: string; value: string }>(
      `SELECT ${COLUMNS} FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key`,
      prefix.length,
      prefix,
    );
    return rows.map((r) => [r.key, r.value]);
  },
};
