import "server-only";

/**
 * A store call written once for both engines: a generator that yields the statements it needs and
 * gets their results back. SQLite runs it synchronously (better-sqlite3), PostgreSQL awaits each
 * statement (pg): `SqliteStore.execute`, `PostgresStore.execute`.
 */

export type Engine = "sqlite" | "postgres";
export type Value = string | number | boolean | null;

/**
 * One statement both engines run (`?` placeholders; PostgreSQL gets them numbered), or each its own
 * side by side; `null`: nothing to do on that engine.
 */
export type Sql = string | { sqlite: string | null; postgres: string | null };

export type Step =
  | { op: "all" | "get" | "run"; sql: Sql; params: Value[] }
  | { op: "engine" }
  /** Announces a write to a shared table to every replica (PostgreSQL's NOTIFY; nothing on SQLite). */
  | { op: "notify"; table: string }
  | { op: "atomic"; body: Program<unknown> };

export type Program<T> = Generator<Step, T, unknown>;

/** The versioned migrations a table adds, per engine: version → SQL. Never edit one that has shipped. */
export interface Schema {
  sqlite: Record<number, string>;
  postgres: Record<number, string>;
}

export function* all<R>(sql: Sql, ...params: Value[]): Program<R[]> {
  return (yield { op: "all", sql, params }) as R[];
}

export function* get<R>(sql: Sql, ...params: Value[]): Program<R | undefined> {
  return (yield { op: "get", sql, params }) as R | undefined;
}

/** Runs a write; the number of rows it changed. */
export function* run(sql: Sql, ...params: Value[]): Program<number> {
  return (yield { op: "run", sql, params }) as number;
}

export function* engine(): Program<Engine> {
  return (yield { op: "engine" }) as Engine;
}

export function* notify(table: string): Program<void> {
  yield { op: "notify", table };
}

/** Runs `body` in one transaction. */
export function* atomic<T>(body: Program<T>): Program<T> {
  return (yield { op: "atomic", body }) as T;
}

/** The text of a statement on an engine; `undefined` when it has none there. */
export function textOn(sql: Sql, on: Engine): string | undefined {
  return (typeof sql === "string" ? sql : sql[on]) ?? undefined;
}

/** What a statement an engine does not run gives back. */
export function skipped(op: "all" | "get" | "run"): unknown {
  return op === "all" ? [] : op === "run" ? 0 : undefined;
}

/** Runs a program whose every step `perform` answers at once (SQLite). */
export function runSync<T>(p: Program<T>, perform: (s: Step) => unknown): T {
  let r = p.next();
  while (!r.done) r = p.next(perform(r.value));
  return r.value;
}

/** Runs a program whose steps `perform` answers later (PostgreSQL). */
export async function runAsync<T>(p: Program<T>, perform: (s: Step) => Promise<unknown>): Promise<T> {
  let r = p.next();
  while (!r.done) r = p.next(await perform(r.value));
  return r.value;
}

/** A stored JSON column, as text (SQLite) or already parsed (PostgreSQL's JSONB); undefined when it does not parse. */
export function jsonColumn(v: unknown): unknown {
  if (typeof v !== "string") return v ?? undefined;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}
