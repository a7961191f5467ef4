/**
 * The browser's copy of a shared session: seeded with the server-rendered snapshot, then kept live
 * over the share's own event stream (`/api/shares/public/:token/events`), which needs nothing but
 * the token. Same reducer, same seq de-duplication and `stream.reset` handling as the console's
 * session store. When the share is revoked or expires the content is dropped from the page.
 */
import type { SharedSnapshot, ShareEndReason, ShareStreamEvent } from "../api";
import type { TimelineEvent } from "../model";
import { applyAll, stateFromSnapshot, type SessionState } from "../timeline/reducer";
import { connectSse, type ConnectionState, type SseClient } from "./sse-client";

export interface ShareView {
  state: SessionState;
  share: SharedSnapshot["share"];
  hasOlder: boolean;
  connection: ConnectionState;
  /** Set once the share is over; the timeline is cleared. */
  ended?: ShareEndReason;
}

export const sharePaths = (token: string) => {
  const base = `/api/shares/public/${encodeURIComponent(token)}`;
  return { snapshot: `${base}/snapshot`, events: `${base}/events` };
};

function viewOf(snap: SharedSnapshot, connection: ConnectionState): ShareView {
  return {
    state: stateFromSnapshot({ session: snap.session, messages: snap.messages, interrupts: [], todos: [] }),
    share: snap.share,
    hasOlder: snap.hasOlder,
    connection,
  };
}

const EMPTY: SessionState = { session: null, messages: [], interrupts: [], todos: [] };

export class ShareStore {
  private view: ShareView;
  private readonly initialView: ShareView;
  private listeners = new Set<() => void>();
  private seq: number;
  private sse: SseClient | undefined;
  private pending: TimelineEvent[] = [];
  private flushScheduled = false;
  private stopped = false;

  constructor(
    readonly token: string,
    initial: SharedSnapshot,
  ) {
    this.seq = initial.seq;
    this.view = this.initialView = viewOf(initial, "connecting");
  }

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  getView = () => this.view;
  /** What the server rendered (for hydration). */
  getServerView = () => this.initialView;

  private set(patch: Partial<ShareView>) {
    this.view = { ...this.view, ...patch };
    for (const l of this.listeners) l();
  }

  start() {
    this.stopped = false;
    if (!this.view.ended) this.connect();
  }

  stop() {
    this.stopped = true;
    this.sse?.close();
    this.sse = undefined;
  }

  private connect() {
    this.sse?.close();
    this.sse = connectSse({
      url: sharePaths(this.token).events,
      lastEventId: String(this.seq),
      onState: (connection, detail) => {
        if (this.view.ended) return;
        // The stream is refused: the share was revoked (404) or expired (410) while we were away.
        if (detail === "HTTP 404" || detail === "HTTP 410") {
          this.end(detail === "HTTP 410" ? "expired" : "revoked");
          return;
        }
        if (this.view.connection !== connection) this.set({ connection });
      },
      onEvent: (data) => this.onWire(data),
    });
  }

  private end(reason: ShareEndReason) {
    this.sse?.close();
    this.sse = undefined;
    this.pending = [];
    this.set({ ended: reason, state: EMPTY, connection: "closed" });
  }

  private async reload() {
    try {
      const res = await fetch(sharePaths(this.token).snapshot, { cache: "no-store", headers: { accept: "application/json" } });
      if (this.stopped) return;
      if (res.status === 404 || res.status === 410) {
        this.end(res.status === 410 ? "expired" : "revoked");
        return;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const snap = (await res.json()) as SharedSnapshot;
      this.seq = snap.seq;
      this.pending = [];
      this.set({ ...viewOf(snap, this.view.connection) });
      this.connect();
    } catch {
      if (!this.stopped) setTimeout(() => void this.reload(), 2000);
    }
  }

  private onWire(data: string) {
    let ev: ShareStreamEvent;
    try {
      ev = JSON.parse(data) as ShareStreamEvent;
    } catch {
      return;
    }
    if (ev.type === "share.ended") {
      this.end(ev.reason);
      return;
    }
    if (ev.type === "stream.reset") {
      this.sse?.close();
      void this.reload();
      return;
    }
    if (typeof ev.seq !== "number" || ev.seq <= this.seq) return;
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
      if (!this.pending.length || this.view.ended) return;
      const batch = this.pending;
      this.pending = [];
      this.set({ state: applyAll(this.view.state, batch) });
    };
    if (typeof document !== "undefined" && !document.hidden && typeof requestAnimationFrame === "function") requestAnimationFrame(run);
    else setTimeout(run, 50);
  }
}
