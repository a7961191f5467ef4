import "server-only";
import type { LiveStore, Store } from "./store";

/**
 * The store as a server database serves it: every call a promise (PostgreSQL, docs/architecture.md
 * "Replicas"). The SQLite store answers at once; `asAsync` gives it this shape, so one contract test
 * runs on both. `search` takes the user's words (already cut to `ftsQuery`'s limits), each store
 * builds its own query from them.
 */
export type AsyncStore = {
  [K in keyof Store]: Store[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

export function asAsync(store: Store | LiveStore): AsyncStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        try {
          return Promise.resolve((value as (...a: unknown[]) => unknown).apply(target, args));
        } catch (err) {
          return Promise.reject(err);
        }
      };
    },
  }) as unknown as AsyncStore;
}
