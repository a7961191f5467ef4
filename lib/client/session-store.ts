/**
 * The browser's copy of one session: loads the snapshot, follows the session after its seq on the
 * tab-shared live stream (lib/client/live-link.ts), applies events through the shared reducer in
 * batches of one animation frame, de-duplicates by seq (lib/client/seq-batcher.ts), and reloads on
 * `stream.reset`. React reads it through `useSyncExternalStore`.
 */
import type { Message, Snapshot, WireEvent } from "../model";
import type { MessagePage } from "../api";
import { applyAll, emptyState, stateFromSnapshot, type SessionState } from "../timeline/reducer";
import { apiGet, sessionPath, ApiClientError } from "./api-client";
import { liveLink } from "./live-link";
import { LiveStore } from "./live-store";
import { SeqBatcher } from "./seq-batcher";
import type { ConnectionState } from "./sse-client";

export interface SessionView {
  state: SessionState;
  loaded: boolean;
  connection: ConnectionState;
  /** Why the session could not be loaded (404, backend down …). */
  loadError?: { status: number; message: string };
  hasOlder: boolean;
  loadingOlder: boolean;
}

/** Newest messages the session page is rendered with on the server (and the timeline's preview shows). */
export const PREVIEW_MESSAGES = 12;

/**
 * The snapshot the page was rendered with. `partial`: only its newest messages (the server sends the
 * newest `PREVIEW_MESSAGES`, not the whole snapshot, to keep the page small); the store then loads
 * the whole snapshot at once after hydration (the page preloads it) before it follows live.
 */
export type InitialSnapshot = Snapshot & { partial?: boolean };

export class SessionStore extends LiveStore<SessionView> {
  private batcher = new SeqBatcher(0, (batch) => this.set({ state: applyAll(this.view.state, batch) }));
  private olderCursor: string | undefined;
  private stopped = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  /** Seeded with a whole snapshot not yet followed: `start` follows live after it instead of loading. */
  private seededWhole = false;

  /**
   * `initial`: the snapshot the page was rendered with. The store starts from it (so the browser's
   * first render matches the server's). A whole one is followed live after its seq at once; a
   * partial one is replaced by the whole snapshot first.
   */
  constructor(
    readonly backendId: string,
    readonly sessionId: string,
    initial?: InitialSnapshot,
  ) {
    super({ state: emptyState, loaded: false, connection: "connecting", hasOlder: false, loadingOlder: false });
    if (initial) {
      const { partial, ...snap } = initial;
      this.seededWhole = !partial;
      this.batcher.reset(snap.seq);
      // A partial snapshot's cursor would skip the messages it left out: no older page until the whole one is in.
      if (!partial) this.olderCursor = snap.olderCursor;
      this.view = {
        ...this.view,
        state: stateFromSnapshot(snap),
        loaded: true,
        hasOlder: Boolean(partial || (snap.hasOlder && snap.olderCursor)),
      };
    }
  }

  start() {
    this.stopped = false;
    const link = liveLink();
    this.unwatchState = link.onState(() => {
      if (this.live && this.view.connection !== link.getState()) this.set({ connection: link.getState() });
    });
    if (this.seededWhole) {
      this.seededWhole = false;
      this.subscribeLive();
    } else void this.load();
  }

  stop() {
    this.stopped = true;
    this.stopLive();
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  private async load() {
    this.closeLive();
    try {
      const snap = await apiGet<Snapshot>(`${sessionPath(this.backendId, this.sessionId)}/snapshot`);
      if (this.stopped) return;
      this.batcher.reset(snap.seq);
      this.olderCursor = snap.olderCursor;
      this.set({ state: stateFromSnapshot(snap), loaded: true, hasOlder: Boolean(snap.hasOlder && snap.olderCursor) });
      delete this.view.loadError;
      this.subscribeLive();
    } catch (err) {
      if (this.stopped) return;
      const status = err instanceof ApiClientError ? err.status : 0;
      const message = err instanceof Error ? err.message : "Could not load the session";
      this.set({ loadError: { status, message }, connection: status === 404 ? "closed" : "reconnecting" });
      if (status !== 404) this.retryTimer = setTimeout(() => void this.load(), 2000);
    }
  }

  private subscribeLive() {
    const link = liveLink();
    this.live = link.subscribe(
      { type: "session", backendId: this.backendId, sessionId: this.sessionId },
      {
        cursor: () => this.batcher.seq,
        frame: (data) => this.onWire(data),
        reset: () => void this.load(),
        // The session was deleted or its backend removed: the reload says so (404).
        closed: () => void this.load(),
        error: (status, message) => {
          this.closeLive();
          this.set({ loadError: { status, message }, connection: status === 404 ? "closed" : "reconnecting" });
          if (status !== 404 && status !== 401 && !this.stopped)
            this.retryTimer = setTimeout(() => void this.load(), 2000);
        },
      },
    );
    if (this.view.connection !== link.getState()) this.set({ connection: link.getState() });
  }

  private onWire(data: string) {
    let ev: WireEvent;
    try {
      ev = JSON.parse(data) as WireEvent;
    } catch {
      return;
    }
    if (ev.type === "stream.reset") {
      void this.load();
      return;
    }
    this.batcher.accept(ev);
  }

  async loadOlder() {
    if (!this.olderCursor || this.view.loadingOlder) return;
    this.set({ loadingOlder: true });
    try {
      const page = await apiGet<MessagePage>(
        `${sessionPath(this.backendId, this.sessionId)}/messages?limit=200&before=${encodeURIComponent(this.olderCursor)}`,
      );
      this.olderCursor = page.nextCursor;
      const have = new Set(this.view.state.messages.map((m) => m.id));
      const older: Message[] = page.items.filter((m) => !have.has(m.id));
      this.set({
        state: { ...this.view.state, messages: [...older, ...this.view.state.messages] },
        hasOlder: Boolean(page.nextCursor),
        loadingOlder: false,
      });
    } catch {
      this.set({ loadingOlder: false });
    }
  }
}
