import "server-only";
import { randomBytes } from "node:crypto";
import type { SseSink } from "./sse";

const encoder = new TextEncoder();

/** Frames of the multiplexed stream that are not a subscription's own events. */
export const MUX_OPEN = "mux.open";
export const MUX_CLOSED = "mux.closed";

function controlFrame(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

interface Sub {
  /** What the subscription is (its spec without the cursor): a changed spec is a new subscription. */
  fingerprint: string;
  detach: () => void;
  sink: KeyedSink;
}

/**
 * A sink whose frames travel on a multiplexed stream under one key: each frame (`id:` + `data:`, as
 * encoded once by the channel for every subscriber) gets an `event: <key>` line in front, so the
 * browser knows which subscription it belongs to without anything being encoded again.
 */
class KeyedSink implements SseSink {
  private removed = false;
  private readonly prefix: Uint8Array;

  constructor(
    private readonly stream: MuxStream,
    readonly key: string,
  ) {
    this.prefix = encoder.encode(`event: ${key}\n`);
  }

  get closed(): boolean {
    return this.removed || this.stream.closed;
  }

  get replayBudget(): number | undefined {
    return this.stream.sink.replayBudget;
  }

  write(frame: Uint8Array): boolean {
    if (this.closed) return false;
    const out = new Uint8Array(this.prefix.byteLength + frame.byteLength);
    out.set(this.prefix, 0);
    out.set(frame, this.prefix.byteLength);
    return this.stream.sink.write(out);
  }

  /** The source ended this subscription (session deleted, share over): the browser is told. */
  close(): void {
    if (this.removed) return;
    this.removed = true;
    this.stream.forget(this.key, this);
    if (!this.stream.closed) this.stream.sink.write(controlFrame(MUX_CLOSED, { key: this.key }));
  }

  /** Detached by the browser (it no longer wants it): nothing is sent. */
  drop(): void {
    this.removed = true;
  }
}

/**
 * One browser's live connection: a single SSE response that carries any number of subscriptions
 * (the global channel, sessions, shares), each under a key the browser chose. The set changes
 * through `PUT /api/live/:streamId` while the stream stays open. It is one subscriber of the hub,
 * with one bounded queue: when the browser falls behind, the whole stream is dropped and the browser
 * reopens it with a cursor per subscription.
 */
export class MuxStream {
  readonly id: string;
  private subs = new Map<string, Sub>();

  /** `idPrefix`: replica mode names the replica that holds the stream (`<replica>~<random>`). */
  constructor(
    readonly sink: SseSink,
    idPrefix = "",
  ) {
    this.id = idPrefix + randomBytes(16).toString("base64url");
    sink.write(controlFrame(MUX_OPEN, { streamId: this.id }));
  }

  get closed(): boolean {
    return this.sink.closed;
  }

  get size(): number {
    return this.subs.size;
  }

  keys(): string[] {
    return [...this.subs.keys()];
  }

  /** True when `key` is held with the same spec (then the browser's cursor is not replayed again). */
  holds(key: string, fingerprint: string): boolean {
    return this.subs.get(key)?.fingerprint === fingerprint;
  }

  /** Adds a subscription: `attach` connects a sink for `key` to its source and returns the detach. */
  add(key: string, fingerprint: string, attach: (sink: SseSink) => () => void): void {
    this.remove(key);
    const sink = new KeyedSink(this, key);
    const sub: Sub = { fingerprint, sink, detach: () => {} };
    this.subs.set(key, sub);
    const detach = attach(sink);
    // The source may have ended it at once (an expired share): then it is already forgotten.
    if (this.subs.get(key) === sub) sub.detach = detach;
    else detach();
  }

  remove(key: string): void {
    const sub = this.subs.get(key);
    if (!sub) return;
    this.subs.delete(key);
    sub.sink.drop();
    sub.detach();
  }

  /** Called by a keyed sink its source closed. */
  forget(key: string, sink: KeyedSink): void {
    const sub = this.subs.get(key);
    if (sub?.sink !== sink) return;
    this.subs.delete(key);
    sub.detach();
  }

  /** The response ended (browser gone, or dropped as too slow): every subscription is detached. */
  dispose(): void {
    for (const key of [...this.subs.keys()]) this.remove(key);
  }
}

/** The open multiplexed streams of this console process, by id. */
export class MuxRegistry {
  private streams = new Map<string, MuxStream>();

  constructor(
    readonly maxStreams = 5000,
    /** Replica mode: `<replica>~`, so a `PUT …/live/:streamId` that reaches another replica is sent here. */
    private readonly idPrefix = "",
  ) {}

  get size(): number {
    return this.streams.size;
  }

  open(sink: SseSink): MuxStream | undefined {
    if (this.streams.size >= this.maxStreams) return undefined;
    const s = new MuxStream(sink, this.idPrefix);
    this.streams.set(s.id, s);
    return s;
  }

  get(id: string): MuxStream | undefined {
    const s = this.streams.get(id);
    if (s?.closed) {
      this.close(id);
      return undefined;
    }
    return s;
  }

  close(id: string): void {
    const s = this.streams.get(id);
    if (!s) return;
    this.streams.delete(id);
    s.dispose();
  }
}
