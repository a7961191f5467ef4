import "server-only";
import { describeError } from "../errors";
import { log } from "../log";
import type { AuditEntry, AuditQuery } from "@/lib/people";
import type { PostgresStore } from "./postgres-store";
import type {
  ForkRecord,
  LiveStore,
  SearchDocument,
  StoredBackend,
  StoredRedactionPattern,
  StoredSearchHit,
  StoredShare,
  StoredTranscript,
} from "./store";

/** The tables every replica announces a write to (`NOTIFY switchboard_changes`, postgres-store.ts). */
type Table = "backends" | "meta" | "shares" | "redaction_patterns" | "session_forks";
const TABLES: readonly Table[] = ["backends", "meta", "shares", "redaction_patterns", "session_forks"];

const forkKey = (backendId: string, sessionId: string) => `${backendId}\u0000${sessionId}`;

/**
 * The store on PostgreSQL as the running console uses it (`LiveStore`, store.ts). The console reads
 * its store on paths that cannot wait for a database — a share's token on every view, the redaction
 * patterns on every shared event, the lineage of every session listed, a transcript while an adapter
 * folds an event — so this keeps a working copy in memory:
 *
 * - backends, settings, shares, redaction patterns and fork records are read whole at `open`, and
 *   read again whenever any replica announces a write to one of them (LISTEN/NOTIFY), so a
 *   revocation or a new pattern made on one replica is in force on every other within a second;
 * - transcripts are held for the backends this process runs: only a backend's owner writes them;
 * - a write changes the copy at once (the caller reads its own write) and is sent to the database
 *   behind every earlier write, in order. A write the database refuses is logged and its table is
 *   read again, so the copy does not keep what the database does not have;
 * - what only the database answers (a frozen share's snapshot, the search index) is asked after the
 *   writes before it have landed.
 */
export class CachedStore implements LiveStore {
  private backends = new Map<string, StoredBackend>();
  private meta = new Map<string, string>();
  private shares = new Map<string, StoredShare>();
  private byToken = new Map<string, StoredShare>();
  private patterns: StoredRedactionPattern[] = [];
  private forks = new Map<string, ForkRecord>();
  private transcripts = new Map<string, Map<string, StoredTranscript>>();
  private tail: Promise<void> = Promise.resolve();
  /** Writes queued per table: a reload that overlapped one is thrown away and done again. */
  private writes = new Map<Table, number>();
  private unlisten: (() => Promise<void>) | undefined;
  private closed = false;
  private listeners = new Set<(table: string) => void>();

  private constructor(private db: PostgresStore) {}

  /**
   * Reads the tables, follows every replica's writes, and holds the transcripts of every backend —
   * or, in replica mode (`transcripts: "owned"`), of none until this replica runs a backend
   * (`reloadTranscripts`), so a replica holds only those of the backends it runs.
   */
  static async open(db: PostgresStore, opts: { transcripts?: "all" | "owned" } = {}): Promise<CachedStore> {
    const store = new CachedStore(db);
    store.unlisten = await db.listen((table) => {
      if ((TABLES as readonly string[]).includes(table)) void store.reload(table as Table);
    });
    for (const t of TABLES) await store.reload(t, true);
    if (opts.transcripts !== "owned")
      for (const t of await db.loadTranscripts()) store.transcriptsOf(t.backendId).set(t.sessionId, t);
    return store;
  }

  onChange(fn: (table: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  refresh(table: "shares"): Promise<void> {
    return this.reload(table);
  }

  dropTranscripts(backendId: string): void {
    this.transcripts.delete(backendId);
  }

  async reloadTranscripts(backendId: string): Promise<void> {
    const rows = await this.ask((db) => db.loadTranscripts([backendId]));
    this.transcripts.set(backendId, new Map(rows.map((t) => [t.sessionId, t])));
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
  }

  /** Reads one table again: announced by a replica (this one's own writes too), or after a refused write. */
  async reload(table: Table, strict = false): Promise<void> {
    try {
      // Read after this console's queued writes have landed, and keep what was read only if no write
      // to the table was made meanwhile (the copy already has it; the database may not yet): a
      // revocation made here is never undone by a read that started before it reached the database.
      for (;;) {
        const before = this.writes.get(table) ?? 0;
        await this.tail;
        const apply = await this.read(table);
        if ((this.writes.get(table) ?? 0) !== before) continue;
        apply();
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

  /** Reads a table; the returned function puts it in the copy. */
  private async read(table: Table): Promise<() => void> {
    switch (table) {
      case "backends": {
        const list = await this.db.listBackends();
        return () => {
          this.backends = new Map(list.map((b) => [b.id, b]));
        };
      }
      case "meta": {
        const rows = await this.db.listMeta();
        return () => {
          this.meta = new Map(rows);
        };
      }
      case "shares": {
        const list = await this.db.listShares();
        return () => {
          this.shares = new Map(list.map((s) => [s.id, s]));
          this.byToken = new Map(list.map((s) => [s.tokenHash, s]));
        };
      }
      case "redaction_patterns": {
        const list = await this.db.listRedactionPatterns();
        return () => {
          this.patterns = list;
        };
      }
      case "session_forks": {
        const list = await this.db.listAllForks();
        return () => {
          this.forks = new Map(list.map((f) => [forkKey(f.backendId, f.sessionId), f]));
        };
      }
    }
  }

  /** Queues a write behind the earlier ones; a refused write is logged and its table read again. */
  private write(what: string, table: Table | undefined, fn: (db: PostgresStore) => Promise<unknown>): void {
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
  private async ask<T>(fn: (db: PostgresStore) => Promise<T>): Promise<T> {
    await this.tail;
    return fn(this.db);
  }

  /* ------------------------------------------------------------------ backends and settings */

  listBackends(): StoredBackend[] {
    return [...this.backends.values()].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }
  putBackend(b: StoredBackend): void {
    const kept = this.backends.get(b.id);
    this.backends.set(b.id, kept ? { ...b, createdAt: kept.createdAt } : b);
    this.write("putBackend", "backends", (db) => db.putBackend(b));
  }
  deleteBackend(id: string): boolean {
    const had = this.backends.delete(id);
    this.write("deleteBackend", "backends", (db) => db.deleteBackend(id));
    return had;
  }
  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }
  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
    this.write("setMeta", "meta", (db) => db.setMeta(key, value));
  }
  deleteMeta(key: string): boolean {
    const had = this.meta.delete(key);
    this.write("deleteMeta", "meta", (db) => db.deleteMeta(key));
    return had;
  }
  listMeta(prefix: string): [string, string][] {
    return [...this.meta].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /* ------------------------------------------------------------------ shares and redaction */

  insertShare(share: StoredShare, frozen?: string): void {
    this.shares.set(share.id, share);
    this.byToken.set(share.tokenHash, share);
    this.write("insertShare", "shares", (db) => db.insertShare(share, frozen));
  }
  getShare(id: string): StoredShare | undefined {
    return this.shares.get(id);
  }
  shareByTokenHash(hash: string): StoredShare | undefined {
    return this.byToken.get(hash);
  }
  listShares(): StoredShare[] {
    return [...this.shares.values()].sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
  }
  frozenSnapshot(id: string): Promise<string | undefined> {
    return this.ask((db) => db.frozenSnapshot(id));
  }
  revokeShare(id: string, at: number): boolean {
    const s = this.shares.get(id);
    this.write("revokeShare", "shares", (db) => db.revokeShare(id, at));
    if (!s || s.revokedAt !== undefined) return false;
    const revoked = { ...s, revokedAt: at };
    this.shares.set(id, revoked);
    this.byToken.set(s.tokenHash, revoked);
    return true;
  }
  dropFrozenSnapshot(id: string): void {
    this.write("dropFrozenSnapshot", undefined, (db) => db.dropFrozenSnapshot(id));
  }
  touchShare(id: string, at: number, count: number): void {
    const s = this.shares.get(id);
    if (s) {
      const touched = { ...s, lastAccessAt: at, accessCount: s.accessCount + count };
      this.shares.set(id, touched);
      this.byToken.set(s.tokenHash, touched);
    }
    this.write("touchShare", undefined, (db) => db.touchShare(id, at, count));
  }
  listRedactionPatterns(): StoredRedactionPattern[] {
    return this.patterns;
  }
  insertRedactionPattern(p: StoredRedactionPattern): void {
    this.patterns = [...this.patterns, p].sort(
      (x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
    );
    this.write("insertRedactionPattern", "redaction_patterns", (db) => db.insertRedactionPattern(p));
  }
  deleteRedactionPattern(id: string): boolean {
    const before = this.patterns.length;
    this.patterns = this.patterns.filter((p) => p.id !== id);
    this.write("deleteRedactionPattern", "redaction_patterns", (db) => db.deleteRedactionPattern(id));
    return this.patterns.length < before;
  }

  /* ------------------------------------------------------------------ forks */

  putFork(f: ForkRecord): void {
    this.forks.set(forkKey(f.backendId, f.sessionId), f);
    this.write("putFork", "session_forks", (db) => db.putFork(f));
  }
  getFork(backendId: string, sessionId: string): ForkRecord | undefined {
    return this.forks.get(forkKey(backendId, sessionId));
  }
  listForks(backendId: string, sourceSessionId: string): ForkRecord[] {
    return [...this.forks.values()]
      .filter((f) => f.backendId === backendId && f.sourceSessionId === sourceSessionId)
      .sort((a, b) => a.createdAt - b.createdAt);
  }
  deleteFork(backendId: string, sessionId: string): void {
    for (const [k, f] of this.forks)
      if (f.backendId === backendId && (f.sessionId === sessionId || f.sourceSessionId === sessionId))
        this.forks.delete(k);
    this.write("deleteFork", "session_forks", (db) => db.deleteFork(backendId, sessionId));
  }

  /* ------------------------------------------------------------------ transcripts */

  private transcriptsOf(backendId: string): Map<string, StoredTranscript> {
    let m = this.transcripts.get(backendId);
    if (!m) this.transcripts.set(backendId, (m = new Map()));
    return m;
  }
  getTranscript(backendId: string, sessionId: string): StoredTranscript | undefined {
    const t = this.transcripts.get(backendId)?.get(sessionId);
    // A copy, as a database read gives: the caller may fold events into it.
    return t ? structuredClone(t) : undefined;
  }
  listTranscripts(backendId: string, limit = 1000): StoredTranscript[] {
    return [...(this.transcripts.get(backendId)?.values() ?? [])]
      .sort((a, b) => b.updatedAt - a.updatedAt || a.sessionId.localeCompare(b.sessionId))
      .slice(0, limit)
      .map(({ messages: _messages, ...rest }) => ({ ...rest, session: { ...rest.session } }));
  }
  putTranscript(t: StoredTranscript): void {
    const kept = structuredClone(t);
    this.transcriptsOf(t.backendId).set(t.sessionId, kept);
    this.write("putTranscript", undefined, (db) => db.putTranscript(kept));
  }
  deleteTranscript(backendId: string, sessionId: string): void {
    this.transcripts.get(backendId)?.delete(sessionId);
    this.write("deleteTranscript", undefined, (db) => db.deleteTranscript(backendId, sessionId));
  }
  deleteTranscripts(backendId: string): void {
    this.transcripts.delete(backendId);
    this.write("deleteTranscripts", undefined, (db) => db.deleteTranscripts(backendId));
  }

  /* ------------------------------------------------------------------ search (the database's own) */

  putSearchDocuments(docs: SearchDocument[]): void {
    this.write("putSearchDocuments", undefined, (db) => db.putSearchDocuments(docs));
  }
  putSearchSession(backendId: string, sessionId: string, title: string, updatedAt: number): void {
    this.write("putSearchSession", undefined, (db) => db.putSearchSession(backendId, sessionId, title, updatedAt));
  }
  searchSessionUpdatedAt(backendId: string, sessionId: string): Promise<number | undefined> {
    return this.ask((db) => db.searchSessionUpdatedAt(backendId, sessionId));
  }
  searchSessionIds(backendId: string): Promise<string[]> {
    return this.ask((db) => db.searchSessionIds(backendId));
  }
  deleteSearchSession(backendId: string, sessionId?: string): void {
    this.write("deleteSearchSession", undefined, (db) => db.deleteSearchSession(backendId, sessionId));
  }
  searchCounts(): Promise<{ backendId: string; sessions: number; messages: number }[]> {
    return this.ask((db) => db.searchCounts());
  }
  search(match: string, q: { backendId?: string; limit: number; offset: number }): Promise<StoredSearchHit[]> {
    return this.ask((db) => db.search(match, q));
  }

  /* ------------------------------------------------------------------ audit log (the database's own) */

  appendAudit(entry: Omit<AuditEntry, "id">): void {
    this.write("appendAudit", undefined, (db) => db.appendAudit(entry));
  }
  listAudit(q: AuditQuery): Promise<AuditEntry[]> {
    return this.ask((db) => db.listAudit(q));
  }
}
