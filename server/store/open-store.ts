import "server-only";
import path from "node:path";
import { describeError } from "../errors";
import { CachedStore } from "./cached-store";
import { PostgresStore } from "./postgres-store";
import { SqliteStore } from "./sqlite-store";
import type { LiveStore } from "./store";

export interface OpenedStore {
  /** The store the console's parts are built with; on PostgreSQL usable once `opened` resolves. */
  store: LiveStore;
  /** Resolves when the store answers (at once for SQLite); rejects with a sentence if it cannot open. */
  opened: Promise<void>;
  /** Which engine, for the start-up log. */
  engine: "sqlite" | "postgres";
}

/**
 * The console's store: SQLite in the data folder (the embedded default), or PostgreSQL when
 * `SWITCHBOARD_DATABASE_URL` is set (docs/deploy.md). PostgreSQL opens asynchronously while the
 * console's parts are built synchronously (`getApp`), so they get a stand-in that forwards to the
 * `CachedStore` once it is open; every route awaits the app's `ready`, which awaits `opened`, so no
 * part reads the store before then.
 */
export function openStore(opts: {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** Replica mode: hold the transcripts of the backends this replica runs only. */
  ownedTranscripts?: boolean;
}): OpenedStore {
  if (!opts.databaseUrl)
    return {
      store: new SqliteStore(path.join(opts.dataDir, "switchboard.db")),
      opened: Promise.resolve(),
      engine: "sqlite",
    };
  let target: CachedStore | undefined;
  const opened = PostgresStore.open(opts.databaseUrl)
    .then((db) => CachedStore.open(db, { transcripts: opts.ownedTranscripts ? "owned" : "all" }))
    .then(
      (s) => {
        target = s;
      },
      (err: unknown) => {
        throw new Error(`could not open the PostgreSQL store (SWITCHBOARD_DATABASE_URL): ${describeError(err)}`);
      },
    );
  const store = new Proxy({} as LiveStore, {
    get(_t, prop) {
      if (prop === "close") return () => target?.close();
      if (prop === "then") return undefined;
      if (!target) throw new Error("the PostgreSQL store is not open yet");
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, opened, engine: "postgres" };
}
