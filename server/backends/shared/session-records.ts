import "server-only";
import path from "node:path";
import type { Message, Session, TimelineEvent, Todo } from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import type { EventSink } from "../types";
import type { LiveStore } from "../../store/store";
import { TranscriptStore } from "./transcripts";

/** How many sessions' records stay in memory; an idle one beyond that is read from the store again. */
const KEPT_RECORDS = 200;

export interface Transcript {
  messages: Message[];
  todos: Todo[];
}

/**
 * The adapter's own record of what it emitted, per session: the events it publishes, folded by the
 * timeline reducer (lib/timeline/reducer.ts) onto the session's transcript as the console kept it.
 * Adapters that keep a transcript for their agent (ACP agents, zot, A2A, Opal) save it from here;
 * they never read the hub's state back. `publish` is the one way their events leave: to the hub,
 * and into the record.
 *
 * A session's record starts from the transcript store (or from a snapshot the adapter made, e.g. an
 * ACP replay, through `seed`); at most `KEPT_RECORDS` are held, an idle one beyond that is dropped
 * and read from the store again when next used (the adapters save a session at each turn's end).
 */
export class SessionRecords {
  /**
   * Per session: the folded state and the events published since. Folding waits until the record
   * is read (a save, a load) or `FOLD_AFTER` events wait, so the relay's path costs an array push:
   * the hub folds every event already.
   */
  private records = new Map<string, { state: SessionState; pending: TimelineEvent[] }>();

  constructor(
    private backendId: string,
    private sink: EventSink,
    private transcripts?: TranscriptStore,
  ) {}

  /** Publishes the session's events to the hub and keeps them for the session's record. */
  publish(sessionId: string, events: readonly TimelineEvent[]): void {
    if (events.length === 0) return;
    const rec = this.recordOf(sessionId);
    rec.pending.push(...events);
    if (rec.pending.length >= FOLD_AFTER) fold(rec);
    for (const e of events) this.sink.publish(this.backendId, sessionId, e);
  }

  /** Starts the session's record over from what the adapter has built of it (a load, a replay). */
  seed(sessionId: string, snapshot: { session?: Session } & Transcript): void {
    const held = this.records.get(sessionId);
    const session = snapshot.session ?? (held ? fold(held).session : null);
    this.hold(sessionId, {
      state: { ...emptyState, session, messages: snapshot.messages, todos: snapshot.todos },
      pending: [],
    });
  }

  /**
   * The session's transcript as the adapter emitted it (on top of what the console kept); undefined
   * for a session of which nothing was emitted or kept (an agent that replays its own history).
   */
  transcript(sessionId: string): Transcript | undefined {
    const held = this.records.get(sessionId);
    if (held) {
      const state = fold(held);
      return { messages: state.messages, todos: state.todos };
    }
    const stored = this.transcripts?.get(sessionId);
    return stored?.messages ? { messages: stored.messages, todos: stored.todos ?? [] } : undefined;
  }

  /** The session's messages as emitted (empty when there are none). */
  messages(sessionId: string): Message[] {
    return this.transcript(sessionId)?.messages ?? [];
  }

  forget(sessionId: string): void {
    this.records.delete(sessionId);
  }

  /** The session's record, started from the kept transcript when there is none yet. */
  private recordOf(sessionId: string): { state: SessionState; pending: TimelineEvent[] } {
    const held = this.records.get(sessionId);
    if (held) return held;
    const stored = this.transcripts?.get(sessionId);
    const rec = {
      state: {
        ...emptyState,
        session: stored?.session ?? null,
        messages: stored?.messages ?? [],
        todos: stored?.todos ?? [],
      },
      pending: [],
    };
    this.hold(sessionId, rec);
    return rec;
  }

  /** Holds a new record; drops the oldest idle records beyond the bound. */
  private hold(sessionId: string, rec: { state: SessionState; pending: TimelineEvent[] }): void {
    this.records.delete(sessionId);
    this.records.set(sessionId, rec);
    if (this.records.size <= KEPT_RECORDS) return;
    for (const [id, r] of this.records) {
      if (this.records.size <= KEPT_RECORDS) break;
      if (id !== sessionId && fold(r).session?.status !== "busy") this.records.delete(id);
    }
  }
}

/** How many published events wait before they are folded into the record. */
const FOLD_AFTER = 500;

/** Folds the waiting events into the record's state (the same reducer as the hub's). */
function fold(rec: { state: SessionState; pending: TimelineEvent[] }): SessionState {
  if (rec.pending.length) {
    rec.state = applyAll(rec.state, rec.pending);
    rec.pending = [];
  }
  return rec.state;
}

/** What a stdio adapter keeps of its sessions: their default directory, the transcript store, the records. */
export interface KeptSessions {
  /** The agent's working directory and the default directory of new sessions. */
  defaultCwd: string;
  transcripts: TranscriptStore;
  records: SessionRecords;
}

export function keptSessions(
  opts: { id: string; store: LiveStore; cwd?: string | undefined; workspace: string },
  sink: EventSink,
): KeptSessions {
  const transcripts = new TranscriptStore(opts.store, opts.id);
  return {
    defaultCwd: path.resolve(opts.cwd ?? opts.workspace),
    transcripts,
    records: new SessionRecords(opts.id, sink, transcripts),
  };
}
