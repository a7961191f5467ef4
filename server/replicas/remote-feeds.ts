import "server-only";
import type { SseSink } from "../hub/sse";
import { log } from "../log";
import type { RemoteSession } from "./remote-session";

/** Frames a feed keeps for subscribers that join with a cursor. */
const RING = 2_000;
/** A feed nobody reads is closed after this long (a reconnecting browser finds it still open). */
const IDLE_MS = 5_000;

const decoder = new TextDecoder();
const seqOf = (frame: Uint8Array): number | undefined => {
  const m = /^id: (\d+)$/m.exec(decoder.decode(frame.subarray(0, 64)));
  return m ? Number(m[1]) : undefined;
};

/**
 * One stream of a session from the replica that runs its backend, shared by every subscriber on
 * this replica (a browser's live stream, a session's `…/events`): frames are passed on byte for
 * byte, and the newest are kept so that a subscriber joining with a cursor the feed has seen is
 * replayed from here. A cursor older than that gets a stream of its own from the owner.
 */
class RemoteFeed {
  private ring: { seq: number; frame: Uint8Array }[] = [];
  private subs = new Map<SseSink, () => void>();
  private detach: (() => void) | undefined;
  private idle: ReturnType<typeof setTimeout> | undefined;
  /** The cursor the feed started from (undefined: live). */
  private startedAfter: number | undefined;
  private last: number | undefined;
  private joined = false;
  ended = false;

  constructor(private onEnd: () => void) {}

  start(upstream: RemoteSession, after: number | undefined): void {
    this.startedAfter = after;
    this.last = after;
    const fanOut: SseSink = {
      closed: false,
      write: (frame) => {
        const seq = seqOf(frame);
        if (seq !== undefined) {
          this.ring.push({ seq, frame });
          if (this.ring.length > RING) this.ring.shift();
          this.last = seq;
        }
        for (const [s] of this.subs) if (!s.write(frame)) this.subs.delete(s);
        return true;
      },
      close: () => this.end(),
    };
    this.detach = upstream.attach(fanOut, () => this.end());
  }

  /** Whether a subscriber at `after` can be served from here with nothing missing. */
  serves(after: number | undefined): boolean {
    if (this.ended) return false;
    if (after === undefined) return true;
    if (after === this.last) return true;
    const first = this.ring[0]?.seq;
    if (first === undefined) return false;
    // What the feed saw starts right after its own cursor, or the ring has dropped older frames.
    const from = this.ring.length < RING && this.startedAfter !== undefined ? this.startedAfter : first - 1;
    return after >= from && this.last !== undefined && after <= this.last;
  }

  subscribe(sink: SseSink, after: number | undefined, lost: () => void): () => void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    // The first subscriber gets what arrived while it was being attached; later ones from their cursor.
    const from = after ?? (this.joined ? undefined : (this.startedAfter ?? -1));
    this.joined = true;
    if (from !== undefined) for (const e of this.ring) if (e.seq > from && !sink.write(e.frame)) return () => {};
    this.subs.set(sink, lost);
    return () => {
      this.subs.delete(sink);
      if (this.subs.size === 0 && !this.ended) {
        this.idle = setTimeout(() => this.end(), IDLE_MS);
        this.idle.unref?.();
      }
    };
  }

  /** The owner's stream ended (it stopped running the backend, or died): every subscriber is told. */
  private end() {
    if (this.ended) return;
    this.ended = true;
    if (this.idle) clearTimeout(this.idle);
    this.detach?.();
    const subs = [...this.subs.values()];
    this.subs.clear();
    this.onEnd();
    for (const lost of subs) lost();
  }

  get size(): number {
    return this.subs.size;
  }
}

/** This replica's feeds, by session: at most one stream from the owner per session. */
export class RemoteFeeds {
  private feeds = new Map<string, RemoteFeed>();

  /**
   * A session's events from its owner for one more subscriber: the shared feed when it serves
   * `after`, else a stream of the subscriber's own (`open`, the owner's `…/events` from `after`).
   */
  async source(
    backendId: string,
    sessionId: string,
    after: number | undefined,
    open: (after: number | undefined) => Promise<RemoteSession>,
  ): Promise<RemoteSession> {
    const k = `${backendId}\u0000${sessionId}`;
    const feed = this.feeds.get(k);
    if (feed?.serves(after)) return { attach: (sink, lost) => feed.subscribe(sink, after, lost) };
    if (feed) return open(after); // a cursor the feed cannot serve: its own stream
    const upstream = await open(after);
    const existing = this.feeds.get(k);
    if (existing?.serves(after)) {
      // Another subscriber made the feed meanwhile: this one's own stream is not needed.
      return upstream;
    }
    const fresh = new RemoteFeed(() => {
      if (this.feeds.get(k) === fresh) this.feeds.delete(k);
    });
    fresh.start(upstream, after);
    this.feeds.set(k, fresh);
    log.debug("following a session on its owner", { backendId, sessionId });
    return { attach: (sink, lost) => fresh.subscribe(sink, after, lost) };
  }

  get size(): number {
    return this.feeds.size;
  }
}
