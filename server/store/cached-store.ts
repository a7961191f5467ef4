import "server-only";
import { describeError } from "../errors";
import { log } from "../log";
import type { PostgresStore } from "./postgres-store";
import { SqliteStore } from "./sqlite-store";
import type { LiveStore } from "./store";
import { type Calls, SHARED, type SharedTable, TRANSCRIPT_COLUMNS } from "./tables";
import { replaceSlice, type Slice } from "./tables/mirror";

/**
 * How each store call is answered: from the copy in memory (`copy`), by the database after the
 * writes queued before it (`database`), applied to the copy at once and queued for the database
 * (`write`; one to a shared table is counted, and its table read again if the database refuses it),
 * or queued only (`queue`: what the database alone keeps).
 */
type Route =
  | { kind: "copy" | "database" | "queue" }
  | { kind: "write"; table?: SharedTable; copyArgs?: (args: unknown[]) => unknown[] };

const copy = { kind: "copy" } as const;
const database = { kind: "database" } as const;
const queue = { kind: "queue" } as const;
const write = (table?: SharedTable) => ({ kind: "write", ...(table ? { table } : {}) }) as const;

const ROUTES: Record<keyof Calls, Route> = {
  listBackends: copy,
  putBackend: write("backends"),
  deleteBackend: write("backends"),
  getMeta: copy,
  setMeta: write("meta"),
  deleteMeta: write("meta"),
  listMeta: copy,
  // The copy keeps no frozen snapshot: the database answers for it.
  insertShare: { kind: "write", table: "shares", copyArgs: ([share]) => [share] },
  getShare: copy,
  shareByTokenHash: copy,
  listShares: copy,
  frozenSnapshot: database,
  revokeShare: write("shares"),
  dropFrozenSnapshot: queue,
  touchShare: write(),
  listRedactionPatterns: copy,
  insertRedactionPattern: write("redaction_patterns"),
  deleteRedactionPattern: write("redaction_patterns"),
  putFork: write("session_forks"),
  getFork: copy,
  listForks: copy,
  deleteFork: write("session_forks"),
  getTranscript: copy,
  listTranscripts: copy,
  putTranscript: write(),
  deleteTranscript: write(),
  deleteTranscripts: write(),
  putSearchDocuments: queue,
  putSearchSession: queue,
  searchSessionUpdatedAt: database,
  searchSessionIds: database,
  deleteSearchSession: queue,
  searchCounts: database,
  search: database,
  appendAudit: queue,
  listAudit: database,
};

type Method = (...args: unknown[]) => unknown;
type Routed = Omit<LiveStore, "close" | "onChange" | "refresh" | "flushed" | "reloadTranscripts" | "dropTranscripts">;

abstract class RoutedStore {
  abstract call(name: keyof Calls, args: unknown[]): unknown;
}
for (const name of Object.keys(ROUTES) as (keyof Calls)[])
  Object.defineProperty(RoutedStore.prototype, name, {
    value(this: RoutedStore, ...args: unknown[]) {
      return this.call(name, args);
    },
    writable: true,
    configurable: true,
  });

const transcriptsOf = (backendId?: string): Slice => ({
  table: "transcripts",
  columns: TRANSCRIPT_COLUMNS,
  ...(backendId !== undefined ? { backendId } : {}),
});

/**
 * The store on PostgreSQL as the running console uses it (`LiveStore`, store.ts). The console reads
 * its store on paths that cannot wait for a database — a share's token on every view, the redaction
 * patterns on every shared event, the lineage of every session listed, a transcript while an adapter
 * folds an event — so this keeps a working copy in memory: an in-memory `SqliteStore`, which answers
 * those reads with the same calls as every store (`ROUTES` says which call goes where):
 *
 * - backends, settings, shares, redaction patterns and fork records are read whole at `open`, and
 *   read again whenever any replica announces a write to one of them (LISTEN/NOTIFY), so a
 *   revocation or a new pattern made on one replica is in force on every other within a second;
 * - transcripts are held for the backends this process runs: only a backend's owner writes them;
 * - a write changes the copy at once (the caller reads its own write; one the copy refuses throws,
 *   as SQLite's would) and is sent to the database behind every earlier write, in order. A write the
 *   database refuses is logged and its table is read again, so the copy does not keep what the
 *   database does not have;
 * - what only the database answers (a frozen share's snapshot, the search index, the audit log) is
 *   asked after the writes before it have landed.
 */
export class CachedStore extends (RoutedStore as abstract new () => RoutedStore & Routed) implements LiveStore {
  private copy = new SqliteStore(":memory:", { quiet: true });
  private tail: Promise<void> = Promise.resolve();
  /** Writes queued per table: a reload that overlapped one is thrown away and done again. */
  private writes = new Map<SharedTable, number>();
  private unlisten: (() => Promise<void>) | undefined;
  private closed = false;
  private listeners = new Set<(table: string) => void>();

  private constructor(private db: PostgresStore) {
    super();
  }

  /**
   * Reads the tables, follows every replica's writes, and holds the transcripts of every backend —
   * or, in replica mode (`transcripts: "owned"`), of none until this replica runs a backend
   * (`reloadTranscripts`), so a replica holds only those of the backends it runs.
   */
  static async open(db: PostgresStore, opts: { transcripts?: "all" | "owned" } = {}): Promise<CachedStore> {
    const store = new CachedStore(db);
    store.unlisten = await db.listen((table) => {
      if (Object.hasOwn(SHARED, table)) void store.reload(table as SharedTable);
    });
    for (const t of Object.keys(SHARED) as SharedTable[]) await store.reload(t, true);
    if (opts.transcripts !== "owned") store.copy.execute(replaceSlice(transcriptsOf(), await db.rows(transcriptsOf())));
    return store;
  }

  call(name: keyof Calls, args: unknown[]): unknown {
    const route = ROUTES[name];
    const here = (this.copy as unknown as Record<string, Method>)[name]!.bind(this.copy);
    const there = (db: PostgresStore) => (db as unknown as Record<string, Method>)[name]!.apply(db, args);
    switch (route.kind) {
      case "copy":
        return here(...args);
      case "database":
        return this.ask(there);
      case "queue":
        this.write(name, undefined, there);
        return undefined;
      case "write": {
        const out = here(...(route.copyArgs?.(args) ?? args));
        this.write(name, route.table, there);
        return out;
      }
    }
  }

  onChange(fn: (table: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  refresh(table: "shares"): Promise<void> {
    return this.reload(table);
  }

  dropTranscripts(backendId: string): void {
    this.copy.deleteTranscripts(backendId);
  }

  async reloadTranscripts(backendId: string): Promise<void> {
    const rows = await this.ask((db) => db.rows(transcriptsOf(backendId)));
    this.copy.execute(replaceSlice(transcriptsOf(backendId), rows));
  }

  /** Resolves when every write made so far has reached the database (or failed and was logged). */
  flushed(): Promise<void> {
    return this.tail;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    await this.unlisten?.();
    await this.db.close();
    this.copy.close();
  }

  /** Reads one table again: announced by a replica (this one's own writes too), or after a refused write. */
  async reload(table: SharedTable, strict = false): Promise<void> {
    const slice = { table, columns: SHARED[table] };
    try {
      // Read after this console's queued writes have landed, and keep what was read only if no write
      // to the table was made meanwhile (the copy already has it; the database may not yet): a
      // revocation made here is never undone by a read that started before it reached the database.
      for (;;) {
        const before = this.writes.get(table) ?? 0;
        await this.tail;
        const rows = await this.db.rows(slice);
        if ((this.writes.get(table) ?? 0) !== before) continue;
        if (this.closed) return;
        this.copy.execute(replaceSlice(slice, rows));
        for (const fn of this.listeners) {
          try {
            fn(table);
          } catch (err) {
            log.warn("a store change listener failed", { table, error: describeError(err) });
          }
        }
        return;
      }
    } catch (err) {
      if (strict) throw err;
      log.warn("could not read a table again; the copy in memory stands", { table, error: describeError(err) });
    }
  }

  /** Queues a write behind the earlier ones; a refused write is logged and its table read again. */
  private write(what: string, table: SharedTable | undefined, fn: (db: PostgresStore) => unknown): void {
    if (table) this.writes.set(table, (this.writes.get(table) ?? 0) + 1);
    this.tail = this.tail
      .then(() => fn(this.db))
      .then(
        () => undefined,
        (err: unknown) => {
          log.error("the database refused a write", { what, error: describeError(err) });
          if (table) void this.reload(table);
        },
      );
  }

  /** A read only the database answers, after the writes queued before it. */
  private async ask<T>(fn: (db: PostgresStore) => T | Promise<T>): Promise<T> {
    await this.tail;
    return fn(this.db);
  }
}
