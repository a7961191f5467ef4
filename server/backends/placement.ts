import "server-only";
import type { LiveStore } from "../store/store";

/**
 * What the registry is told when where a backend runs changes. Steps for one backend are applied in
 * the order they come (a start finishes before a stop begins).
 */
export interface PlacementListener {
  /**
   * This console runs the backend from now on: start its adapter. `current` says, when the start is
   * reached, whether that still holds (a later change may have overtaken it).
   */
  runHere(backendId: string, current: () => boolean): void;
  /** This console no longer runs the backend (another one does now): stop its adapter. */
  movedAway(backendId: string): void;
}

/**
 * Where each backend runs (docs/architecture.md, "The composition root"). The registry makes an
 * adapter for every backend, so every console lists the same ones, and asks placement whether it
 * runs each. One console runs all of them (`localPlacement`); in replica mode each runs on one
 * replica at a time (server/replicas/).
 */
export interface Placement {
  /** Called once, by the registry, with what to do when placement changes. */
  listen(listener: PlacementListener): void;
  /**
   * A backend was added: `"here"` when this console runs it now (the registry starts it at once),
   * `"later"` when placement tells the listener once it does.
   */
  place(backendId: string): "here" | "later";
  /** A backend was removed: stop placing it (and let it go, if this console ran it). */
  release(backendId: string): Promise<void>;
  /** Does this console run the backend now? */
  runsHere(backendId: string): boolean;
  /** The store as the backend's adapter writes it (writes may be refused once it runs elsewhere). */
  storeFor(backendId: string, store: LiveStore): LiveStore;
}

/** One console: it runs every backend, at once and for good. */
export function localPlacement(): Placement {
  return {
    listen() {},
    place: () => "here",
    release: async () => {},
    runsHere: () => true,
    storeFor: (_id, store) => store,
  };
}
