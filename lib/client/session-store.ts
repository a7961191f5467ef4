/**
 * The browser's copy of one session: loads the snapshot, subscribes to the event stream after its
 * seq, applies events through the shared reducer in batches of one animation frame, de-duplicates
 * by seq, and reloads on `stream.reset`. React reads it through `useSyncExternalStore`.
 */
import type { Message, Snapshot, TimelineEvent, WireEvent } from "../model";
import type { MessagePage } from "../api";
import { applyAll, emptyState, stateFromSnapshot, type SessionState } from "../timeline/reducer";
import { coalesceDeltas } from "../timeline/coalesce";
import { apiGet, sessionPath, ApiClientError, onUnauthorized } from "./api-client";
import { connectSse, type ConnectionState, type SseClient } from "./sse-client";

export interface SessionView {
  state: SessionState;
  loaded: boolean;
  connection: ConnectionState;
  /** Why the session could not be loaded (404, backend down …). */
  loadError?: { status: number; message: string };
  hasOlder: boolean;
  loadingOlder: boolean;
}

export class SessionStore {
  private view: SessionView = { state: emptyState, loaded: false, connection: "connecting", hasOlder: false, loadingOlder: false };
  private listeners = new Set<() => void>();
  private seq = 0;
  private sse: SseClient | undefined;
  private pending: TimelineEvent[] = [];
  private flushScheduled = false;
  private olderCursor: string | undefined;
  private stopped = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly backendId: string,
    readonly sessionId: string,
  ) {}

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  getView = () => this.view;

  private set(patch: Partial<SessionView>) {
    this.view = { ...this.view, ...patch };
    for (const l of this.listeners) l();
  }

  start() {
    this.stopped = false;
    void this.load();
  }

  stop() {
    this.stopped = true;
    this.sse?.close();
    this.sse = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /** Forces the live stream to drop and resume (also used by tests). */
  reconnect() {
    this.sse?.reconnect();
  }

  private async load() {
    this.sse?.close();
    this.sse = undefined;
    try {
      const snap = await apiGet<Snapshot>(`${sessionPath(this.backendId, this.sessionId)}/snapshot`);
      if (this.stopped) return;
      this.seq = snap.seq;
      this.pending = [];
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
    this.sse = connectSse({
      url: `${sessionPath(this.backendId, this.sessionId)}/events`,
      lastEventId: String(this.seq),
      onState: (connection) => {
        if (this.view.connection !== connection) this.set({ connection });
      },
      onEvent: (data) => this.onWire(data),
      onUnauthorized,
    });
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
    if (typeof ev.seq !== "number" || ev.seq <= this.seq) return; // already applied
    this.seq = ev.seq;
    const { seq: _seq, ...event } = ev;
    this.pending.push(event as TimelineEvent);
    this.scheduleFlush();
  }

  private scheduleFlush() {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const run = () => {
      this.flushScheduled = false;
      if (!this.pending.length) return;
      const batch = this.pending;
      this.pending = [];
      this.set({ state: applyAll(this.view.state, coalesceDeltas(batch)) });
    };
    if (typeof document !== "undefined" && !document.hidden && typeof requestAnimationFrame === "function") requestAnimationFrame(run);
    else setTimeout(run, 50);
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
