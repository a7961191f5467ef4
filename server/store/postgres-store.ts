import "server-only";
import pg from "pg";
import { log } from "../log";
import type { AsyncStore } from "./async-store";
import { AsyncComposed } from "./composed-store";
import { migrations } from "./tables";
import { readSlice, type Slice } from "./tables/mirror";
import { type Program, runAsync, type Step, skipped, textOn } from "./tables/program";

/** The channel every write is announced on (its payload: the table), for the replicas' caches. */
export const CHANGES_CHANNEL = "switchboard_changes";

/**
 * Versioned migrations, applied in order at start-up under an advisory lock (two replicas starting
 * at once apply each one once). Times are epoch milliseconds.
 */
const MIGRATIONS = migrations("postgres");

/** BIGINT (oid 20) as a number: every BIGINT here is epoch milliseconds or a count. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** `?` placeholders numbered as PostgreSQL's `$1, $2, …`, kept per statement. */
const numbered = new Map<string, string>();
function numberedText(sql: string): string {
  let out = numbered.get(sql);
  if (out === undefined) {
    let i = 0;
    out = sql.replace(/\?/g, () => `$${++i}`);
    numbered.set(sql, out);
  }
  return out;
}

/** The store on PostgreSQL (`SWITCHBOARD_DATABASE_URL`), through `pg`'s pool. */
export class PostgresStore extends AsyncComposed implements AsyncStore {
  private constructor(private pool: pg.Pool) {
    super();
  }

  /** Connects and applies the migrations this build has and the database does not. */
  static async open(url: string, opts: { max?: number } = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, types });
    pool.on("error", (err) => log.warn("PostgreSQL connection failed", { error: err.message }));
    const store = new PostgresStore(pool);
    await store.transaction(async (c) => {
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
    });
    return store;
  }

  execute<T>(p: Program<T>, on: pg.Pool | pg.PoolClient = this.pool): Promise<T> {
    return runAsync(p, (s) => this.perform(s, on));
  }

  private async perform(s: Step, on: pg.Pool | pg.PoolClient): Promise<unknown> {
    if (s.op === "engine") return "postgres";
    if (s.op === "notify")
      return on.query("SELECT pg_notify($1, $2)", [CHANGES_CHANNEL, s.table]).then(() => undefined);
    if (s.op === "atomic")
      return on === this.pool ? this.transaction((c) => this.execute(s.body, c)) : this.execute(s.body, on);
    const text = textOn(s.sql, "postgres");
    if (text === undefined) return skipped(s.op);
    const r = await on.query(numberedText(text), s.params);
    return s.op === "all" ? r.rows : s.op === "get" ? r.rows[0] : (r.rowCount ?? 0);
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

  /** A table's rows as they are stored (a replica's copy in memory: ./cached-store.ts). */
  rows(slice: Slice): Promise<Record<string, unknown>[]> {
    return this.execute(readSlice(slice));
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

  async close(): Promise<void> {
    await this.pool.end();
  }
}
