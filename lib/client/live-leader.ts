/**
 * The leader tab's side of the browser's one live stream: it holds `GET /api/live`, keeps the
 * stream's subscriptions equal to the union of what every tab follows (`PUT /api/live/:streamId`),
 * and relays every frame to all tabs. A tab that starts following something the stream already
 * carries is replayed what it missed from a short per-subscription buffer, or told to reload.
 */
import type { LiveSubscription, LiveSubscriptionsResult } from "../api";
import { frameSeq, type LiveMessage, type LiveSpec, type RelayedFrame, type WantedSub } from "./live-protocol";
import type { ConnectionState, SseClient, SseClientOptions } from "./sse-client";

/** Per subscription, the newest frames are kept for tabs that join late (bounded). */
const BUFFER_FRAMES = 2000;
const BUFFER_CHARS = 4_000_000;
/** A new leader waits this long for the other tabs' `want` before it subscribes. */
export const TAKEOVER_SETTLE_MS = 200;

interface Held {
  id: string;
  key: string;
  spec: LiveSpec;
  /** The cursor to subscribe after (the newest seq relayed, once there is one). */
  after: number | undefined;
  /** Whether the server has this subscription on the current stream. */
  sent: boolean;
  /** The buffer holds every frame with a seq above this (undefined: nothing can be replayed). */
  floor: number | undefined;
  /** The newest seq relayed. */
  seen: number | undefined;
  buf: { seq: number; data: string; id: string | undefined }[];
  bufChars: number;
}

export interface LeaderDeps {
  /** The stream's route: `/api/live` (console pages) or `/api/shares/public/live` (share pages). */
  url: string;
  /** Sends a message to every tab, this one included. */
  emit(msg: LiveMessage): void;
  connect(opts: SseClientOptions): SseClient;
  /** `PUT /api/live/:streamId`; the status and, on 200, the body. */
  put(
    streamId: string,
    subscriptions: Record<string, LiveSubscription>,
  ): Promise<{ status: number; body?: LiveSubscriptionsResult }>;
  now?: () => number;
}

function toSubscription(spec: LiveSpec, after: number | undefined): LiveSubscription {
  const cursor = after === undefined ? {} : { after };
  switch (spec.type) {
    case "global":
      return { type: "global", ...cursor };
    case "session":
      return { type: "session", backendId: spec.backendId, sessionId: spec.sessionId, ...cursor };
    case "share":
      return { type: "share", token: spec.token, ...cursor };
  }
}

const minCursor = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : Math.min(a, b);

export class LiveLeader {
  private wants = new Map<string, Map<string, WantedSub>>();
  private held = new Map<string, Held>();
  private byKey = new Map<string, Held>();
  private nextKey = 0;
  private sse: SseClient | undefined;
  private streamId: string | undefined;
  private syncing = false;
  private dirty = false;
  private failed = false;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private settled: boolean;
  private queue: RelayedFrame[] = [];
  private state: { state: ConnectionState; detail?: string } = { state: "connecting" };
  private stopped = false;

  constructor(
    private readonly deps: LeaderDeps,
    /** Taking over from another leader: wait for the other tabs' wants before subscribing. */
    takeover: boolean,
  ) {
    this.settled = !takeover;
    if (takeover) {
      this.settleTimer = setTimeout(() => {
        this.settled = true;
        this.sync();
      }, TAKEOVER_SETTLE_MS);
    }
  }

  start(): void {
    this.sse = this.deps.connect({
      url: this.deps.url,
      resume: false,
      onState: (state, detail) => {
        if (state !== "connected") this.streamId = undefined;
        this.state = detail ? { state, detail } : { state };
        this.deps.emit({ t: "state", ...this.state });
      },
      onUnauthorized: () => this.deps.emit({ t: "unauthorized" }),
      onEvent: (data, id, event) => this.onFrame(data, id, event),
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.sse?.close();
    this.sse = undefined;
  }

  /** Drops the connection and resumes every subscription from its cursor (tests, wake from sleep). */
  reconnect(): void {
    this.sse?.reconnect();
  }

  /** A tab's whole subscription set. */
  want(tab: string, subs: WantedSub[]): void {
    const before = this.wants.get(tab) ?? new Map<string, WantedSub>();
    const now = new Map(subs.map((s) => [s.id, s] as const));
    this.wants.set(tab, now);
    for (const sub of now.values()) {
      if (before.has(sub.id)) continue;
      const h = this.held.get(sub.id);
      if (!h) this.hold(sub);
      else this.catchUp(tab, sub, h);
    }
    this.release();
    this.deps.emit({ t: "state", ...this.state });
    this.sync();
  }

  /** Tabs that are gone (closed, crashed): what only they followed is dropped. */
  forget(tabs: Iterable<string>): void {
    let changed = false;
    for (const tab of tabs) changed = this.wants.delete(tab) || changed;
    if (changed && this.release()) this.sync();
  }

  tabs(): string[] {
    return [...this.wants.keys()];
  }

  /* ------------------------------------------------------------------ internals */

  private hold(sub: WantedSub): void {
    let after = sub.cursor;
    for (const subs of this.wants.values()) {
      const other = subs.get(sub.id);
      if (other) after = minCursor(after, other.cursor);
    }
    const h: Held = {
      id: sub.id,
      key: `k${(this.nextKey++).toString(36)}`,
      spec: sub.spec,
      after,
      sent: false,
      floor: after,
      seen: undefined,
      buf: [],
      bufChars: 0,
    };
    this.held.set(h.id, h);
    this.byKey.set(h.key, h);
  }

  /** A tab starts following what the stream already carries: replay what it missed, or reset it. */
  private catchUp(tab: string, sub: WantedSub, h: Held): void {
    const c = sub.cursor;
    if (h.seen === undefined) {
      if (c === undefined || h.after === undefined || c >= h.after) return;
      if (!h.sent) {
        h.after = h.floor = c;
        return;
      }
    } else if (c !== undefined && c >= h.seen) {
      return;
    }
    if (c !== undefined && h.floor !== undefined && c >= h.floor) {
      const frames: RelayedFrame[] = h.buf.filter((f) => f.seq > c).map((f) => [h.id, f.data, f.id]);
      if (frames.length) this.deps.emit({ t: "frames", frames, to: tab });
      return;
    }
    this.deps.emit({ t: "reset", id: h.id, reason: "joined after what the shared stream still holds", to: tab });
  }

  /** Drops subscriptions no tab follows any more; true when one was dropped. */
  private release(): boolean {
    const wanted = new Set<string>();
    for (const subs of this.wants.values()) for (const id of subs.keys()) wanted.add(id);
    let dropped = false;
    for (const [id, h] of this.held) {
      if (wanted.has(id)) continue;
      this.held.delete(id);
      this.byKey.delete(h.key);
      dropped = true;
    }
    return dropped;
  }

  private onFrame(data: string, id: string | undefined, event: string | undefined): void {
    if (event === "mux.open") {
      try {
        this.streamId = (JSON.parse(data) as { streamId: string }).streamId;
      } catch {
        return;
      }
      for (const h of this.held.values()) h.sent = false;
      this.sync();
      return;
    }
    if (event === "mux.closed") {
      let key: string | undefined;
      try {
        key = (JSON.parse(data) as { key: string }).key;
      } catch {
        return;
      }
      const h = key === undefined ? undefined : this.byKey.get(key);
      if (!h) return;
      this.drop(h);
      this.deps.emit({ t: "closed", id: h.id });
      return;
    }
    const h = event === undefined ? undefined : this.byKey.get(event);
    if (!h) return;
    const seq = frameSeq(id);
    if (seq !== undefined) {
      if (isReset(data) || isHello(data)) {
        // The subscriber starts over from here: nothing before can be replayed.
        h.buf = [];
        h.bufChars = 0;
        h.floor = seq;
      } else {
        h.buf.push({ seq, data, id });
        h.bufChars += data.length;
        while (h.buf.length > BUFFER_FRAMES || (h.bufChars > BUFFER_CHARS && h.buf.length > 1)) {
          const old = h.buf.shift()!;
          h.bufChars -= old.data.length;
          h.floor = old.seq;
        }
      }
      h.seen = h.seen === undefined ? seq : Math.max(h.seen, seq);
      h.after = h.seen;
    }
    this.queue.push([h.id, data, id]);
    if (this.queue.length === 1) queueMicrotask(() => this.flushFrames());
  }

  private flushFrames(): void {
    if (!this.queue.length) return;
    const frames = this.queue;
    this.queue = [];
    this.deps.emit({ t: "frames", frames });
  }

  private drop(h: Held): void {
    this.held.delete(h.id);
    this.byKey.delete(h.key);
  }

  /** Makes the server's subscription set equal to `held` (one request at a time, coalesced). */
  private sync(): void {
    if (this.stopped || !this.settled) return;
    if (this.syncing) {
      this.dirty = true;
      return;
    }
    const streamId = this.streamId;
    if (!streamId) return;
    const sending = [...this.held.values()];
    const body: Record<string, LiveSubscription> = {};
    for (const h of sending) body[h.key] = toSubscription(h.spec, h.after);
    this.syncing = true;
    this.dirty = false;
    void this.deps
      .put(streamId, body)
      .then(({ status, body: answer }) => {
        if (streamId !== this.streamId) return;
        if (status === 404) {
          // The stream closed under us: a new one is opened and everything is sent again.
          this.reconnect();
          return;
        }
        if (status !== 200 || !answer) {
          this.failed = true;
          return;
        }
        for (const h of sending) {
          const r = answer.results[h.key];
          if (!r || this.byKey.get(h.key) !== h) continue;
          if (r.ok) {
            h.sent = true;
            continue;
          }
          this.drop(h);
          if (r.status === 401) this.deps.emit({ t: "unauthorized" });
          this.deps.emit({ t: "error", id: h.id, status: r.status, message: r.message });
        }
      })
      .catch(() => {
        this.failed = true;
      })
      .finally(() => {
        this.syncing = false;
        if (this.stopped) return;
        // A failed request is retried after a pause; a change made meanwhile is sent at once.
        if (this.failed) {
          this.failed = false;
          setTimeout(() => this.sync(), 1000);
        } else if (this.dirty) this.sync();
      });
  }
}

// The server writes `type` first in every event it encodes (server/hub/session-channel.ts, the hub's
// global channel), so the kind of a frame is known without parsing it.
function isReset(data: string): boolean {
  return data.startsWith('{"type":"stream.reset"');
}

function isHello(data: string): boolean {
  return data.startsWith('{"type":"hello"');
}
