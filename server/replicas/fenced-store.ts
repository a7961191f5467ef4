import "server-only";
import { log } from "../log";
import type { LiveStore } from "../store/store";

/** The store writes a backend's adapter makes: its transcripts and its settings. */
const FENCED = new Set<PropertyKey>(["putTranscript", "deleteTranscript", "deleteTranscripts", "setMeta"]);

/**
 * The store as one backend's adapter sees it in replica mode: its writes go through only while this
 * replica holds the backend's lease and has renewed it within its time to live. A replica that was
 * stalled (SIGSTOP, a long pause) past its lease finds, when it runs again, that another replica
 * owns the backend: the events its agents sent meanwhile are not written over the new owner's
 * transcripts, and its agents are stopped as soon as its lease check runs (./lease.ts).
 */
export function fencedStore(store: LiveStore, backendId: string, mayWrite: () => boolean): LiveStore {
  let refused = 0;
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (!FENCED.has(prop)) return value.bind(target);
      return (...args: unknown[]) => {
        if (mayWrite()) return (value as (...a: unknown[]) => unknown).apply(target, args);
        if (refused++ % 100 === 0)
          log.warn("refused a write: this replica no longer holds the backend's lease", {
            backend: backendId,
            write: String(prop),
            refused,
          });
        return undefined;
      };
    },
  });
}
