import "server-only";
import { log } from "../log";
import type { AsyncStore } from "./async-store";
import type { PostgresStore } from "./postgres-store";
import type { StoredBackend, StoredRedactionPattern, StoredShare } from "./store";

type Table = "backends" | "meta" | "shares" | "redaction_patterns";
const TABLES: Table[] = ["backends", "meta", "shares", "redaction_patterns"];

/**
 * The small tables every request path reads synchronously (backends, the settings named in
 * `metaKeys`, shares by id and token, redaction patterns), held in memory over an asynchronous store and read again when
 * any replica writes one (`PostgresStore.listen`, NOTIFY `switchboard_changes`): a revocation or a
 * new redaction pattern made on one replica is in force on every other within a second. Writes go
 * to the store (awaited), then the table is read again here at once.
 */
export class StoreCache {
  private backends: StoredBackend[] = [];
  private meta = new Map<string, string>();
  private shares = new Map<string, StoredShare>();
  private byToken = new Map<string, StoredShare>();
  private patterns: StoredRedactionPattern[] = [];
  private unlisten: (() => Promise<void>) | undefined;

  private constructor(
    private store: AsyncStore,
    private metaKeys: readonly string[],
  ) {}

  /** Loads the tables and, on PostgreSQL, follows every replica's writes. */
  static async open(store: AsyncStore & Partial<Pick<PostgresStore, "listen">>, metaKeys: readonly string[] = []) {
    const cache = new StoreCache(store, metaKeys);
    for (const t of TABLES) await cache.reload(t);
    if (store.listen)
      cache.unlisten = await store.listen((table) => {
        if ((TABLES as string[]).includes(table)) void cache.reload(table as Table);
      });
    return cache;
  }

  async close(): Promise<void> {
    await this.unlisten?.();
  }

  /** Reads one table again (after a write here, or announced by another replica). */
  async reload(table: Table): Promise<void> {
    try {
      switch (table) {
        case "backends":
          this.backends = await this.store.listBackends();
          break;
        case "meta":
          for (const k of this.metaKeys) {
            const v = await this.store.getMeta(k);
            if (v === undefined) this.meta.delete(k);
            else this.meta.set(k, v);
          }
          break;
        case "shares": {
          const list = await this.store.listShares();
          this.shares = new Map(list.map((s) => [s.id, s]));
          this.byToken = new Map(list.map((s) => [s.tokenHash, s]));
          break;
        }
        case "redaction_patterns":
          this.patterns = await this.store.listRedactionPatterns();
          break;
      }
    } catch (err) {
      log.warn("could not read a table again; the cached copy stands", {
        table,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  listBackends(): StoredBackend[] {
    return this.backends;
  }
  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }
  getShare(id: string): StoredShare | undefined {
    return this.shares.get(id);
  }
  shareByTokenHash(hash: string): StoredShare | undefined {
    return this.byToken.get(hash);
  }
  listRedactionPatterns(): StoredRedactionPattern[] {
    return this.patterns;
  }
}
