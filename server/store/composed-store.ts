import "server-only";
import type { AsyncStore } from "./async-store";
import { type Calls, PROGRAMS } from "./tables";
import type { Program } from "./tables/program";

/**
 * The store calls, each written once (./tables/): every call runs its table's program through the
 * engine's `execute` — synchronously on SQLite, as a promise on PostgreSQL.
 */
abstract class Composed {
  /** Runs a program on this store's engine. */
  abstract execute<T>(p: Program<T>): T | Promise<T>;
}

for (const [name, program] of Object.entries(PROGRAMS) as [string, (...a: unknown[]) => Program<unknown>][])
  Object.defineProperty(Composed.prototype, name, {
    value(this: Composed, ...args: unknown[]) {
      return this.execute(program(...args));
    },
    writable: true,
    configurable: true,
  });

/** The base of a store that answers at once (SQLite). */
export const SyncComposed = Composed as abstract new () => Composed & Calls;
/** The base of a store whose every call is a promise (PostgreSQL). */
export const AsyncComposed = Composed as unknown as abstract new () => Composed & Omit<AsyncStore, "close">;
