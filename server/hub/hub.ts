import "server-only";
import { interruptLimitError, refusedInterruptNotice } from "@/lib/interrupt-limits";
import type {
  Backend,
  GlobalEvent,
  Interrupt,
  Message,
  Session,
  Snapshot,
  TimelineEvent,
  WireEvent,
} from "@/lib/model";
import { diffStates } from "@/lib/timeline/diff";
import { keepShownText } from "@/lib/timeline/keep-shown";
import { findMessageIndex, stateFromSnapshot, type SessionState } from "@/lib/timeline/reducer";
import type { BackendAdapter, EventSink, LoadedSession } from "../backends/types";
import { ApiError } from "../errors";
import { log } from "../log";
import { RingLog } from "./ring-log";
import { SessionChannel } from "./session-channel";
import { encodeFrame, type SseSink } from "./sse";

/** Pending interrupts a backend reports, without those over the bounds (never shown). */
export function withinBounds<T extends Interrupt>(list: T[]): T[] {
  return list.filter((i) => interruptLimitError(i) === undefined);
}

const key = (b: string, s: string) => `${b}\u0000${s}`;

/**
 * Told of every timeline event the hub relays and of removed sessions and backends: the search
 * index follows the console this way. `state` reads the open session's state (undefined when it is
 * not open); it is a function so that an observer reads it when it needs it, not at each event —
 * reading folds the channel's pending events, which publishing alone never does.
 */
/** What the console adds to a session's events and messages beyond its backend (who did what). */
export interface HubAnnotator {
  /** The event types it stamps: the hub passes it no other (never a streaming delta). */
  readonly stamps: ReadonlySet<TimelineEvent["type"]>;
  /** `known` says whether the session's open channel already holds a message (absent: none open). */
  event(backendId: string, sessionId: string, e: TimelineEvent, known?: (messageId: string) => boolean): TimelineEvent;
  message<M extends Message>(backendId: string, sessionId: string, m: M): M;
}

export interface HubObserver {
  event(backendId: string, sessionId: string, event: TimelineEvent, state: (() => SessionState) | undefined): void;
  sessionRemoved(backendId: string, sessionId: string): void;
  backendRemoved(backendId: string): void;
}
/**
 * A session's events kept outside this process (replica mode: a Redis Stream per session), so that
 * the console that runs the backend next — after a failover, or this one after a restart — numbers
 * them on from the same `seq` and a browser's cursor resumes. One console has none: its ring log is
 * all there is.
 */
export interface SessionJournal {
  /** Are this backend's sessions journaled here (this console runs it)? */
  covers(backendId: string): boolean;
  /** A channel was opened with this state: the base later events are folded onto. */
  opened(backendId: string, sessionId: string, snapshot: Snapshot): void;
  /** An event the channel published (with its seq); `snapshot` reads the state after it. */
  record(backendId: string, sessionId: string, wire: WireEvent, snapshot: () => Snapshot): void;
  /** The last state kept and the events the log holds, to open the channel from. */
  restore(backendId: string, sessionId: string): Promise<{ checkpoint?: Snapshot; entries: WireEvent[] }>;
  /** The session was deleted. */
  forget(backendId: string, sessionId: string): void;
}

/** What differs across replicas, given by the composition root (server/app.ts). */
export interface HubParts {
  journal?: SessionJournal | undefined;
  /**
   * Sees every global event this console makes (not those relayed from another replica): replica
   * mode passes the ones about the backends it runs to the others.
   */
  globalOut?: ((event: GlobalEvent) => void) | undefined;
  /** Stamps who did what on events and loaded messages (server/sessions/attribution.ts). */
  annotate?: HubAnnotator | undefined;
}

/**
 * What the agent has now, with the text the log already showed kept in replies still running: an
 * agent that stores a streamed part only when it ends (OpenCode 1.x) reads back a running reply
 * shorter than the browsers saw it, and the part's final update carries the whole text.
 */
function keepLoggedText(logged: SessionState, fresh: SessionState): SessionState {
  const byId = new Map(logged.messages.map((m) => [m.id, m]));
  const messages = fresh.messages.map((m) => {
    const shown = byId.get(m.id);
    return shown && m.role === "assistant" && m.completedAt === undefined ? keepShownText(m, shown) : m;
  });
  return { ...fresh, messages };
}

const IDLE_EVICT_MS = 10 * 60_000;
const MAX_CHANNELS = 200;

/**
 * The event hub: one channel per open session (event log, materialized state, fan-out, replay),
 * plus the global channel behind `GET /api/events`. Adapters publish into it; routes read from it.
 */
export class Hub implements EventSink {
  private channels = new Map<string, SessionChannel>();
  private loading = new Map<string, { promise: Promise<SessionChannel>; buffer: TimelineEvent[] }>();
  private globalSubs = new Set<SseSink>();
  private globalLog = new RingLog<{ seq: number; frame: Uint8Array }>(1000);
  private globalSeq = Date.now() * 1000;
  private sweeper: ReturnType<typeof setInterval>;
  private observers = new Set<HubObserver>();
  /** The session journal (undefined for one console: the ring log is all there is). */
  private readonly journal: SessionJournal | undefined;
  /** Told of every global event this console makes (not those `relayed` from another). */
  private readonly globalOut: ((event: GlobalEvent) => void) | undefined;
  /** Stamps who did what (server/sessions/attribution.ts) on events and on loaded messages. */
  private readonly annotate: HubAnnotator | undefined;

  constructor(
    private resolve: (backendId: string) => BackendAdapter | undefined,
    /** Adds what the console knows about a session beyond its backend (fork lineage). */
    private decorate: (backendId: string, session: Session) => Session = (_b, s) => s,
    parts: HubParts = {},
  ) {
    this.journal = parts.journal;
    this.globalOut = parts.globalOut;
    this.annotate = parts.annotate;
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref?.();
  }

  /* ------------------------------------------------------------------ adapters → hub */

  publish(backendId: string, sessionId: string, eventIn: TimelineEvent): void {
    // Every adapter's interrupts pass here: one over the bounds (lib/interrupt-limits.ts) that an
    // adapter did not refuse itself never reaches a browser; a notice says why.
    if (eventIn.type === "interrupt.requested") {
      const reason = interruptLimitError(eventIn.interrupt);
      if (reason) {
        log.warn("dropped an interrupt over the console's bounds", {
          backendId,
          sessionId,
          kind: eventIn.interrupt.kind,
          reason,
        });
        for (const e of refusedInterruptNotice(eventIn.interrupt, reason)) this.publish(backendId, sessionId, e);
        return;
      }
    }
    const decorated: TimelineEvent =
      eventIn.type === "session.updated" ? { ...eventIn, session: this.decorate(backendId, eventIn.session) } : eventIn;
    const k = key(backendId, sessionId);
    const ch = this.channels.get(k);
    const event = this.annotate?.stamps.has(decorated.type)
      ? this.annotate.event(
          backendId,
          sessionId,
          decorated,
          ch ? (id) => findMessageIndex(ch.state.messages, id) >= 0 : undefined,
        )
      : decorated;
    if (ch) this.emit(ch, event);
    else this.loading.get(k)?.buffer.push(event);
    this.toGlobal(backendId, sessionId, event, ch);
    if (this.observers.size) this.tell((o) => o.event(backendId, sessionId, event, ch ? () => ch.state : undefined));
  }

  /** Adds an observer; the returned function removes it. */
  observe(o: HubObserver): () => void {
    this.observers.add(o);
    return () => this.observers.delete(o);
  }

  /** An observer's failure is logged and never reaches the adapter that published. */
  private tell(fn: (o: HubObserver) => void) {
    for (const o of this.observers) {
      try {
        fn(o);
      } catch (err) {
        log.warn("hub observer failed", { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  backendChanged(backend: Backend): void {
    this.emitGlobal({ type: "backend.updated", backend });
  }

  openSessions(backendId: string): string[] {
    const out: string[] = [];
    for (const ch of this.channels.values()) if (ch.backendId === backendId) out.push(ch.sessionId);
    return out;
  }

  reconcile(backendId: string, sessionId: string, fresh: LoadedSession): void {
    const ch = this.channels.get(key(backendId, sessionId));
    if (!ch) return;
    const events = diffStates(
      ch.state,
      stateFromSnapshot({
        ...fresh,
        messages: this.annotated(backendId, sessionId, fresh.messages),
        interrupts: withinBounds(fresh.interrupts),
        session: this.decorate(backendId, fresh.session),
      }),
    );
    if (events.length) log.info("reconciled session", { backendId, sessionId, events: events.length });
    for (const e of events) this.publish(backendId, sessionId, e);
  }

  /** Messages as served: with their authors and answers (a backend's page of older ones too). */
  annotated(backendId: string, sessionId: string, messages: Message[]): Message[] {
    const a = this.annotate;
    return a ? messages.map((m) => a.message(backendId, sessionId, m)) : messages;
  }

  /** Whether a browser (or another replica for one) follows the session's channel now. */
  watched(backendId: string, sessionId: string): boolean {
    return (this.channels.get(key(backendId, sessionId))?.subscriberCount ?? 0) > 0;
  }

  sessionState(backendId: string, sessionId: string): SessionState | undefined {
    return this.channels.get(key(backendId, sessionId))?.state;
  }

  async openSession(backendId: string, sessionId: string): Promise<void> {
    await this.open(backendId, sessionId);
  }

  /* ------------------------------------------------------------------ routes → hub */

  /** The channel of a session, loading it from its backend on first use. */
  async open(backendId: string, sessionId: string): Promise<SessionChannel> {
    const k = key(backendId, sessionId);
    const existing = this.channels.get(k);
    if (existing) return existing;
    const pending = this.loading.get(k);
    if (pending) return pending.promise;
    const adapter = this.resolve(backendId);
    if (!adapter) throw ApiError.notFound(`Unknown backend: ${backendId}`);
    const buffer: TimelineEvent[] = [];
    const journal = this.journal?.covers(backendId) ? this.journal : undefined;
    const promise = (async () => {
      try {
        const restored = journal
          ? await journal.restore(backendId, sessionId).catch((err: unknown) => {
              log.warn("could not read a session's log; it starts afresh", {
                backendId,
                sessionId,
                error: err instanceof Error ? err.message : String(err),
              });
              return undefined;
            })
          : undefined;
        const loaded = await adapter.loadSession(sessionId);
        loaded.interrupts = withinBounds(loaded.interrupts);
        loaded.session = this.decorate(backendId, loaded.session);
        loaded.messages = this.annotated(backendId, sessionId, loaded.messages);
        const olderCursor = loaded.olderCursor ? { olderCursor: loaded.olderCursor } : {};
        const fresh = stateFromSnapshot(loaded);
        let ch: SessionChannel;
        if (restored?.checkpoint) {
          // The state the last owner kept, its events after that, then what the backend has now
          // that the log does not (the owner died mid-turn): a cursor from before resumes with no gap.
          ch = new SessionChannel(backendId, sessionId, stateFromSnapshot(restored.checkpoint), {
            ...olderCursor,
            seqBase: restored.checkpoint.seq,
          });
          ch.restore(restored.entries, restored.checkpoint.seq);
          const missed = diffStates(ch.state, keepLoggedText(ch.state, fresh));
          if (missed.length) log.info("resumed a session's log", { backendId, sessionId, missed: missed.length });
          for (const e of missed) this.emit(ch, e);
        } else {
          const last = restored?.entries.at(-1)?.seq;
          ch = new SessionChannel(backendId, sessionId, fresh, {
            ...olderCursor,
            ...(last !== undefined ? { seqBase: Math.max(last, Date.now() * 1000) } : {}),
          });
        }
        journal?.opened(backendId, sessionId, ch.snapshot());
        // Events that raced with the load: upserts are safe to apply again; deltas may already be
        // in the loaded text, so they are dropped (the block's next full update carries them).
        for (const e of buffer) if (e.type !== "block.delta") this.emit(ch, e);
        this.channels.set(k, ch);
        this.evictIfNeeded();
        return ch;
      } finally {
        this.loading.delete(k);
      }
    })();
    this.loading.set(k, { promise, buffer });
    return promise;
  }

  /** Drop a channel (session deleted): subscribers are closed. */
  drop(backendId: string, sessionId: string): void {
    const k = key(backendId, sessionId);
    this.journal?.forget(backendId, sessionId);
    this.channels.get(k)?.closeAll();
    this.channels.delete(k);
    this.emitGlobal({ type: "session.removed", backendId, sessionId });
    this.tell((o) => o.sessionRemoved(backendId, sessionId));
  }

  /**
   * Closes the backend's open channels without saying it is gone: this replica stopped running it
   * (replica mode: placement moved it elsewhere). Their subscribers reconnect and reach the new owner.
   */
  closeBackend(backendId: string): void {
    for (const [k, ch] of this.channels) {
      if (ch.backendId === backendId) {
        ch.closeAll();
        this.channels.delete(k);
      }
    }
  }

  dropBackend(backendId: string): void {
    this.closeBackend(backendId);
    this.emitGlobal({ type: "backend.removed", backendId });
    this.tell((o) => o.backendRemoved(backendId));
  }

  /* ------------------------------------------------------------------ global channel */

  /** `relayed`: the event came from another replica (it is not passed on again). */
  emitGlobal(event: GlobalEvent, relayed = false): void {
    if (!relayed) this.globalOut?.(event);
    const seq = ++this.globalSeq;
    const frame = encodeFrame(seq, event);
    this.globalLog.push({ seq, frame });
    for (const s of this.globalSubs) if (!s.write(frame)) this.globalSubs.delete(s);
  }

  /** The seq of the newest global event: a subscriber that has seen the state up to here follows after it. */
  get globalCursor(): number {
    return this.globalSeq;
  }

  subscribeGlobal(sink: SseSink, hello: GlobalEvent, after?: number): () => void {
    const first = this.globalLog.firstSeq;
    const held =
      after !== undefined &&
      after <= this.globalSeq &&
      (after === this.globalSeq || (first !== undefined && after >= first - 1));
    if (held) {
      for (const e of this.globalLog.after(after!)) sink.write(e.frame);
    } else {
      sink.write(encodeFrame(this.globalSeq, hello));
    }
    this.globalSubs.add(sink);
    return () => this.globalSubs.delete(sink);
  }

  get stats() {
    let subscribers = 0;
    for (const ch of this.channels.values()) subscribers += ch.subscriberCount;
    return { channels: this.channels.size, subscribers, globalSubscribers: this.globalSubs.size };
  }

  stop(): void {
    clearInterval(this.sweeper);
    for (const ch of this.channels.values()) ch.closeAll();
    for (const s of this.globalSubs) s.close();
    this.channels.clear();
    this.globalSubs.clear();
  }

  /* ------------------------------------------------------------------ internals */

  /** Publishes on a channel, and keeps the event in the session's log in replica mode. */
  private emit(ch: SessionChannel, event: TimelineEvent): void {
    const wire = ch.publish(event);
    if (this.journal?.covers(ch.backendId)) this.journal.record(ch.backendId, ch.sessionId, wire, () => ch.snapshot());
  }

  private toGlobal(backendId: string, sessionId: string, e: TimelineEvent, ch: SessionChannel | undefined) {
    switch (e.type) {
      case "session.updated":
        this.emitGlobal({ type: "session.updated", session: ch?.state.session ?? e.session });
        break;
      case "session.status": {
        const status = ch?.state.session?.status ?? e.status;
        this.emitGlobal({
          type: "session.status",
          backendId,
          sessionId,
          status,
          ...(e.detail ? { detail: e.detail } : {}),
        });
        break;
      }
      case "interrupt.requested":
        this.emitGlobal({ type: "interrupt.requested", backendId, interrupt: e.interrupt });
        break;
      case "interrupt.resolved":
        this.emitGlobal({
          type: "interrupt.resolved",
          backendId,
          sessionId,
          interruptId: e.interruptId,
          outcome: e.outcome,
        });
        break;
      default:
        break;
    }
  }

  private sweep() {
    const now = Date.now();
    for (const [k, ch] of this.channels) {
      if (ch.subscriberCount === 0 && now - ch.lastUsed > IDLE_EVICT_MS && ch.state.session?.status === "idle") {
        this.channels.delete(k);
      }
    }
  }

  private evictIfNeeded() {
    if (this.channels.size <= MAX_CHANNELS) return;
    const idle = [...this.channels.entries()]
      .filter(([, ch]) => ch.subscriberCount === 0)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k] of idle.slice(0, this.channels.size - MAX_CHANNELS)) this.channels.delete(k);
  }
}
