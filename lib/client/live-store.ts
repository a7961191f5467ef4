/**
 * What the browser's stores share (the global store, a session's, a shared session's): a view that
 * React reads through `useSyncExternalStore` and that changes only by `set` (a new object each time),
 * and one subscription on the tab-shared live stream (lib/client/live-link.ts) with the watch on its
 * connection state.
 */
import type { LiveSubscriptionHandle } from "./live-link";

export abstract class LiveStore<V extends object> {
  private listeners = new Set<() => void>();
  protected live: LiveSubscriptionHandle | undefined;
  protected unwatchState: (() => void) | undefined;

  constructor(protected view: V) {}

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  };

  getView = () => this.view;

  protected set(patch: Partial<V>) {
    this.view = { ...this.view, ...patch };
    for (const l of this.listeners) l();
  }

  /** Drops the live subscription (a reload or the end subscribes again). */
  protected closeLive() {
    this.live?.close();
    this.live = undefined;
  }

  /** Drops the live subscription and stops following the connection's state. */
  protected stopLive() {
    this.closeLive();
    this.unwatchState?.();
  }
}
