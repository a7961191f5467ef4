/**
 * The browser's copy of a shared session: seeded with the server-rendered snapshot, then kept live
 * on the tab-shared live stream (lib/client/live-link.ts), where a share subscription needs nothing
 * but the token — a viewer with several shared sessions open holds one connection, like the console.
 * Same reducer, same seq de-duplication (lib/client/seq-batcher.ts) and `stream.reset` handling as the
 * console's session store. When the share is revoked or expires the content is dropped from the page.
 */
import type { SharedSnapshot, ShareEndReason, ShareStreamEvent } from "../api";
import type { WireEvent } from "../model";
import { applyAll, stateFromSnapshot, type SessionState } from "../timeline/reducer";
import { liveLink } from "./live-link";
import { LiveStore } from "./live-store";
import { SeqBatcher } from "./seq-batcher";
import type { ConnectionState } from "./sse-client";

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

export class ShareStore extends LiveStore<ShareView> {
  private readonly initialView: ShareView;
  private batcher: SeqBatcher;
  private stopped = false;

  constructor(
    readonly token: string,
    initial: SharedSnapshot,
  ) {
    const view = viewOf(initial, "connecting");
    super(view);
    this.initialView = view;
    this.batcher = new SeqBatcher(initial.seq, (batch) => {
      if (!this.view.ended) this.set({ state: applyAll(this.view.state, batch) });
    });
  }

  /** What the server rendered (for hydration). */
  getServerView = () => this.initialView;

  start() {
    this.stopped = false;
    const link = liveLink("share");
    this.unwatchState = link.onState(() => {
      if (this.live && !this.view.ended && this.view.connection !== link.getState())
        this.set({ connection: link.getState() });
    });
    if (!this.view.ended) this.connect();
  }

  stop() {
    this.stopped = true;
    this.stopLive();
  }

  private connect() {
    this.live?.close();
    const link = liveLink("share");
    this.live = link.subscribe(
      { type: "share", token: this.token },
      {
        cursor: () => this.batcher.seq,
        frame: (data) => this.onWire(data),
        reset: () => void this.reload(),
        // The share's stream ended without saying why (the session is gone): the snapshot tells.
        closed: () => {
          if (!this.view.ended) void this.reload();
        },
        error: (status) => {
          // Refused: the share was revoked (404) or expired (410) while we were away.
          if (status === 404 || status === 410) this.end(status === 410 ? "expired" : "revoked");
          else if (!this.stopped) setTimeout(() => void this.reload(), 2000);
        },
      },
    );
    if (this.view.connection !== link.getState()) this.set({ connection: link.getState() });
  }

  private end(reason: ShareEndReason) {
    this.closeLive();
    this.batcher.reset(this.batcher.seq);
    this.set({ ended: reason, state: EMPTY, connection: "closed" });
  }

  private async reload() {
    try {
      const res = await fetch(sharePaths(this.token).snapshot, {
        cache: "no-store",
        headers: { accept: "application/json" },
      });
      if (this.stopped) return;
      if (res.status === 404 || res.status === 410) {
        this.end(res.status === 410 ? "expired" : "revoked");
        return;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const snap = (await res.json()) as SharedSnapshot;
      this.batcher.reset(snap.seq);
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
      this.closeLive();
      void this.reload();
      return;
    }
    this.batcher.accept(ev as WireEvent);
  }
}
