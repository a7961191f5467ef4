import "server-only";
import type { Snapshot, TimelineEvent, WireEvent } from "@/lib/model";
import { applyAll, type SessionState } from "@/lib/timeline/reducer";
import { RingLog } from "./ring-log";
import { encodeFrame, type SseSink } from "./sse";

interface LogEntry {
  seq: number;
  event: WireEvent;
  frame?: Uint8Array;
}

export const DEFAULT_LOG_CAPACITY = 10_000;

/**
 * How far a restored channel's numbering jumps past the last logged event: the last owner may have
 * sent a few events to browsers that it had not yet written to the log when it died, and their seqs
 * must never be given to other events here.
 */
export const RESUME_GAP = 1_000_000;

/**
 * Events published but not yet folded into the state. The state is materialized when it is read (a
 * snapshot, the hub's global view) or when this many are waiting: one batch copies the messages
 * array once, so the hub's cost per delta does not grow with the session's length.
 */
const MAX_PENDING = 256;

/** An in-process subscriber that receives events (not encoded frames), e.g. a share's stream. */
export interface ChannelListener {
  /** Called for every event, after the channel's state has applied it. */
  event(e: WireEvent): void;
  /** The channel is gone (session deleted, backend removed). */
  close(): void;
}

/**
 * The hub's record of one session: a growing `seq`, the bounded event log, the materialized state
 * (through the shared reducer), and the live subscribers.
 */
export class SessionChannel {
  seq: number;
  olderCursor: string | undefined;
  lastUsed = Date.now();
  private log: RingLog<LogEntry>;
  private subscribers = new Set<SseSink>();
  private listeners = new Set<ChannelListener>();
  private applied: SessionState;
  private pending: TimelineEvent[] = [];
  /** After `restore`: the last seq the log held; cursors above it (and below `seq` at restore) were the last owner's unlogged events. */
  private restoredTo: number | undefined;
  /** After `restore`: the seq this channel's own events start after. */
  private resumedAt: number | undefined;

  constructor(
    readonly backendId: string,
    readonly sessionId: string,
    initial: SessionState,
    opts: { capacity?: number; olderCursor?: string; seqBase?: number } = {},
  ) {
    this.applied = initial;
    this.olderCursor = opts.olderCursor;
    this.log = new RingLog(opts.capacity ?? DEFAULT_LOG_CAPACITY);
    // seq only grows, also across console restarts and channel reloads: start from the clock.
    this.seq = opts.seqBase ?? Date.now() * 1000;
  }

  /** The materialized session: every published event applied (lib/timeline/reducer.ts). */
  get state(): SessionState {
    return this.materialize();
  }

  get subscriberCount(): number {
    return this.subscribers.size + this.listeners.size;
  }

  /**
   * Replica mode: takes the session's log as the previous owner left it (the session journal, ./hub.ts):
   * every entry goes into the ring log, so a cursor from that owner resumes here; those after
   * `foldAfter` (the seq of the state this channel was made with) are applied to the state. Nothing
   * is sent: no subscriber is attached yet.
   */
  restore(entries: WireEvent[], foldAfter: number): void {
    for (const e of entries) {
      if (e.seq <= foldAfter) {
        this.log.push({ seq: e.seq, event: e });
        continue;
      }
      const { seq: _seq, ...event } = e;
      this.pending.push(event as TimelineEvent);
      if (this.pending.length >= MAX_PENDING) this.materialize();
      this.log.push({ seq: e.seq, event: e });
    }
    const last = entries.at(-1)?.seq;
    if (last !== undefined && last > this.seq) this.seq = last;
    this.restoredTo = this.seq;
    this.seq += RESUME_GAP;
    this.resumedAt = this.seq;
  }

  /**
   * A cursor past the restored log but before this channel's own events: the last owner's events it
   * did not get to log. The browser has them; every event this channel published since restoring
   * (first the absolute upserts that bring the log's state to the agent's) is what it lacks.
   */
  private beyondLog(after: number): boolean {
    return (
      this.restoredTo !== undefined && this.resumedAt !== undefined && after > this.restoredTo && after < this.resumedAt
    );
  }

  publish(event: TimelineEvent): WireEvent {
    this.pending.push(event);
    if (this.pending.length >= MAX_PENDING) this.materialize();
    const wire = { ...event, seq: ++this.seq } as WireEvent;
    const entry: LogEntry = { seq: wire.seq, event: wire };
    this.log.push(entry);
    if (this.subscribers.size) {
      const frame = (entry.frame = encodeFrame(wire.seq, wire));
      for (const s of this.subscribers) if (!s.write(frame)) this.subscribers.delete(s);
    }
    for (const l of this.listeners) {
      try {
        l.event(wire);
      } catch {
        this.listeners.delete(l);
      }
    }
    return wire;
  }

  snapshot(): Snapshot {
    const s = this.state;
    this.lastUsed = Date.now();
    return {
      session: s.session!,
      messages: s.messages,
      interrupts: s.interrupts,
      todos: s.todos,
      seq: this.seq,
      hasOlder: this.olderCursor !== undefined,
      ...(this.olderCursor ? { olderCursor: this.olderCursor } : {}),
      ...(s.lastError ? { lastError: s.lastError } : {}),
    };
  }

  /**
   * Attach a subscriber. Replays every event after `after`; when that seq is no longer held (or
   * belongs to another incarnation of the channel), sends `stream.reset` first so the client
   * reloads the snapshot.
   */
  subscribe(sink: SseSink, afterIn: number | undefined): () => void {
    this.lastUsed = Date.now();
    const after = afterIn !== undefined && this.beyondLog(afterIn) ? this.resumedAt : afterIn;
    if (after !== undefined && after !== this.seq) {
      const first = this.log.firstSeq;
      const held = after <= this.seq && (first === undefined ? after === this.seq : after >= first - 1);
      const backlog = held ? this.log.after(after) : [];
      let bytes = 0;
      for (const e of backlog) bytes += (e.frame ??= encodeFrame(e.seq, e.event)).byteLength;
      if (!held || bytes > (sink.replayBudget ?? Infinity)) {
        // Not held, or more than the subscriber may owe: the client reloads the snapshot instead.
        const reason = held
          ? "too far behind to replay; reload the snapshot"
          : "history no longer held; reload the snapshot";
        const reset: WireEvent = { type: "stream.reset", reason, seq: this.seq };
        sink.write(encodeFrame(this.seq, reset));
      } else {
        for (const e of backlog) if (!sink.write(e.frame!)) return () => {};
      }
    }
    this.subscribers.add(sink);
    return () => {
      this.subscribers.delete(sink);
      this.lastUsed = Date.now();
    };
  }

  /**
   * Attach an event listener, with the same replay rules as `subscribe`: the events after `after`,
   * or `stream.reset` when that seq is no longer held.
   */
  listen(listener: ChannelListener, afterIn: number | undefined): () => void {
    this.lastUsed = Date.now();
    const after = afterIn !== undefined && this.beyondLog(afterIn) ? this.resumedAt : afterIn;
    if (after !== undefined && after !== this.seq) {
      const first = this.log.firstSeq;
      const held = after <= this.seq && (first === undefined ? after === this.seq : after >= first - 1);
      if (!held)
        listener.event({ type: "stream.reset", reason: "history no longer held; reload the snapshot", seq: this.seq });
      else for (const e of this.log.after(after)) listener.event(e.event);
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      this.lastUsed = Date.now();
    };
  }

  private materialize(): SessionState {
    if (this.pending.length) {
      const events = this.pending;
      this.pending = [];
      try {
        this.applied = applyAll(this.applied, events);
      } catch {
        // One event the reducer cannot take must not cost the others (nor the publisher).
        for (const e of events) {
          try {
            this.applied = applyAll(this.applied, [e]);
          } catch {
            // dropped from the state; it stays in the log
          }
        }
      }
    }
    return this.applied;
  }

  closeAll(): void {
    for (const s of this.subscribers) s.close();
    this.subscribers.clear();
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const l of listeners) l.close();
  }
}
