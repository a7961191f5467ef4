/**
 * A tab's handle on the browser's one live stream (docs/architecture.md, "One live stream per
 * browser"). Browsers allow six HTTP/1.1 connections per host; a stream per tab would starve every
 * other request after a few tabs. So the tabs of one origin elect a leader with the Web Locks API
 * (the lock is released the moment its tab closes, crashes or reloads, and the next tab in line gets
 * it), talk over a BroadcastChannel, and only the leader holds a connection (lib/client/live-leader.ts).
 * Without Web Locks or BroadcastChannel each tab holds its own single stream.
 */
import type { LiveSubscription, LiveSubscriptionsResult } from "../api";
import { onUnauthorized } from "./api-client";
import { LiveLeader } from "./live-leader";
import { specId, type LiveMessage, type LiveSpec, type WantedSub } from "./live-protocol";
import { connectSse, type ConnectionState } from "./sse-client";

export type { LiveSpec } from "./live-protocol";

export interface LiveHandlers {
  /** The seq this subscriber has applied up to (a new leader resumes from the lowest). */
  cursor(): number | undefined;
  frame(data: string, id: string | undefined): void;
  /** Reload what is followed (a snapshot, the global hello) and follow again from there. */
  reset(reason: string): void;
  /** The server ended the subscription (the session was deleted, the share is over…). */
  closed(): void;
  /** The server refused it (404, 410, 401…). */
  error(status: number, message: string): void;
}

export interface LiveSubscriptionHandle {
  close(): void;
}

interface LocalSub {
  id: string;
  spec: LiveSpec;
  handlers: LiveHandlers;
}

/**
 * Console pages and share pages each share their own stream: a share viewer has no login, and its
 * stream (`/api/shares/public/live`) carries shares only.
 */
export type LiveScope = "console" | "share";
const ROUTE: Record<LiveScope, string> = { console: "/api/live", share: "/api/shares/public/live" };
const PRUNE_MS = 5000;

function randomId(): string {
  const a = new Uint8Array(9);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function putSubscriptions(route: string, streamId: string, subscriptions: Record<string, LiveSubscription>) {
  const res = await fetch(`${route}/${encodeURIComponent(streamId)}`, {
    method: "PUT",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ subscriptions }),
    cache: "no-store",
  });
  return { status: res.status, ...(res.ok ? { body: (await res.json()) as LiveSubscriptionsResult } : {}) };
}

export class LiveLink {
  readonly tab = randomId();
  private readonly channelName: string;
  private readonly leaderLock: string;
  private readonly tabLock: string;

  constructor(readonly scope: LiveScope) {
    this.channelName = `switchboard-live-${scope}`;
    this.leaderLock = `switchboard-live-${scope}-leader`;
    this.tabLock = `switchboard-live-${scope}-tab-`;
  }

  private subs = new Map<number, LocalSub>();
  private nextHandle = 0;
  private channel: BroadcastChannel | undefined;
  private leader: LiveLeader | undefined;
  private started = false;
  private sawOtherTabs = false;
  private state: ConnectionState = "connecting";
  private stateListeners = new Set<() => void>();
  private pruneTimer: ReturnType<typeof setInterval> | undefined;

  /** Follows `spec` live; frames arrive through `handlers` until the handle is closed. */
  subscribe(spec: LiveSpec, handlers: LiveHandlers): LiveSubscriptionHandle {
    this.start();
    const handle = this.nextHandle++;
    this.subs.set(handle, { id: specId(spec), spec, handlers });
    this.announce();
    return {
      close: () => {
        if (this.subs.delete(handle)) this.announce();
      },
    };
  }

  /** The state of the shared connection (whichever tab holds it). */
  getState = (): ConnectionState => this.state;

  onState = (fn: () => void): (() => void) => {
    this.stateListeners.add(fn);
    return () => {
      this.stateListeners.delete(fn);
    };
  };

  /** True while this tab holds the browser's connection. */
  get isLeader(): boolean {
    return this.leader !== undefined;
  }

  /** Drops the shared connection and resumes every subscription from its cursor (asks the leader). */
  reconnect(): void {
    if (this.leader) this.leader.reconnect();
    else this.channel?.postMessage({ t: "reconnect" } satisfies LiveMessage);
  }

  /* ------------------------------------------------------------------ internals */

  private start() {
    if (this.started || typeof window === "undefined") return;
    this.started = true;
    const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
    if (typeof BroadcastChannel === "undefined" || !locks) {
      this.becomeLeader(false);
      return;
    }
    this.channel = new BroadcastChannel(this.channelName);
    this.channel.onmessage = (e: MessageEvent<LiveMessage>) => this.onMessage(e.data);
    // Held for the tab's whole life: the leader reads these to notice tabs that died without a word.
    void locks.request(this.tabLock + this.tab, () => new Promise<void>(() => {}));
    void locks.request(this.leaderLock, () => {
      this.becomeLeader(this.sawOtherTabs);
      return new Promise<void>(() => {});
    });
    window.addEventListener("pagehide", () =>
      this.channel?.postMessage({ t: "bye", tab: this.tab } satisfies LiveMessage),
    );
  }

  private becomeLeader(takeover: boolean) {
    const leader = new LiveLeader(
      {
        url: ROUTE[this.scope],
        emit: (msg) => {
          this.channel?.postMessage(msg);
          queueMicrotask(() => this.onMessage(msg));
        },
        connect: connectSse,
        put: (streamId, subs) => putSubscriptions(ROUTE[this.scope], streamId, subs),
      },
      takeover,
    );
    this.leader = leader;
    for (const l of this.stateListeners) l();
    leader.start();
    leader.want(this.tab, this.wanted());
    this.channel?.postMessage({ t: "leader", tab: this.tab } satisfies LiveMessage);
    const locks = navigator.locks;
    if (this.channel && locks) {
      clearInterval(this.pruneTimer);
      this.pruneTimer = setInterval(() => {
        void locks.query().then((snapshot) => {
          const alive = new Set((snapshot.held ?? []).map((l) => l.name));
          leader.forget(leader.tabs().filter((t) => t !== this.tab && !alive.has(this.tabLock + t)));
        });
      }, PRUNE_MS);
    }
  }

  private wanted(): WantedSub[] {
    const byId = new Map<string, WantedSub>();
    for (const s of this.subs.values()) {
      const cursor = s.handlers.cursor();
      const prev = byId.get(s.id);
      if (!prev) byId.set(s.id, { id: s.id, spec: s.spec, ...(cursor !== undefined ? { cursor } : {}) });
      else if (prev.cursor !== undefined && (cursor === undefined || cursor < prev.cursor)) {
        if (cursor === undefined) delete prev.cursor;
        else prev.cursor = cursor;
      }
    }
    return [...byId.values()];
  }

  private announce() {
    const subs = this.wanted();
    if (this.leader) this.leader.want(this.tab, subs);
    else this.channel?.postMessage({ t: "want", tab: this.tab, subs } satisfies LiveMessage);
  }

  private setState(state: ConnectionState) {
    if (this.state === state) return;
    this.state = state;
    for (const l of this.stateListeners) l();
  }

  private each(id: string, fn: (h: LiveHandlers) => void) {
    for (const s of [...this.subs.values()]) if (s.id === id) fn(s.handlers);
  }

  private onMessage(msg: LiveMessage) {
    if ("to" in msg && msg.to !== undefined && msg.to !== this.tab) return;
    switch (msg.t) {
      case "want":
        this.sawOtherTabs = true;
        this.leader?.want(msg.tab, msg.subs);
        break;
      case "bye":
        this.leader?.forget([msg.tab]);
        break;
      case "leader":
        this.sawOtherTabs = true;
        if (msg.tab !== this.tab && !this.leader) this.announce();
        break;
      case "frames":
        if (!this.leader) this.sawOtherTabs = true;
        for (const [id, data, sseId] of msg.frames) this.each(id, (h) => h.frame(data, sseId));
        break;
      case "reset":
        this.each(msg.id, (h) => h.reset(msg.reason));
        break;
      case "closed":
        this.each(msg.id, (h) => h.closed());
        break;
      case "error":
        this.each(msg.id, (h) => h.error(msg.status, msg.message));
        break;
      case "state":
        if (!this.leader) this.sawOtherTabs = true;
        this.setState(msg.state);
        break;
      case "unauthorized":
        onUnauthorized();
        break;
      case "reconnect":
        this.leader?.reconnect();
        break;
    }
  }
}

const links: Partial<Record<LiveScope, LiveLink>> = {};

/** This tab's live link (one per tab and scope). */
export function liveLink(scope: LiveScope = "console"): LiveLink {
  return (links[scope] ??= new LiveLink(scope));
}
