import "server-only";
import path from "node:path";
import type { Message, Session, TimelineEvent, Todo } from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import type { EventSink } from "../types";
import type { Store } from "../../store/store";
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
  private states = new Map<string, SessionState>();

  constructor(
    private backendId: string,
    private sink: EventSink,
    private transcripts?: TranscriptStore,
  ) {}

  /** Publishes the session's events to the hub and folds them into its record. */
  publish(sessionId: string, events: readonly TimelineEvent[]): void {
    if (events.length === 0) return;
    this.touch(sessionId, applyAll(this.stateOf(sessionId), events));
    for (const e of events) this.sink.publish(this.backendId, sessionId, e);
  }

  /** Starts the session's record over from what the adapter has built of it (a load, a replay). */
  seed(sessionId: string, snapshot: { session?: Session } & Transcript): void {
    this.touch(sessionId, {
      ...emptyState,
      session: snapshot.session ?? this.states.get(sessionId)?.session ?? null,
      messages: snapshot.messages,
      todos: snapshot.todos,
    });
  }

  /**
   * The session's transcript as the adapter emitted it (on top of what the console kept); undefined
   * for a session of which nothing was emitted or kept (an agent that replays its own history).
   */
  transcript(sessionId: string): Transcript | undefined {
    const state = this.states.get(sessionId);
    if (state) return { messages: state.messages, todos: state.todos };
    const stored = this.transcripts?.get(sessionId);
    return stored?.messages ? { messages: stored.messages, todos: stored.todos ?? [] } : undefined;
  }

  /** The session's messages as emitted (empty when there are none). */
  messages(sessionId: string): Message[] {
    return this.transcript(sessionId)?.messages ?? [];
  }

  forget(sessionId: string): void {
    this.states.delete(sessionId);
  }

  clear(): void {
    this.states.clear();
  }

  private stateOf(sessionId: string): SessionState {
    const held = this.states.get(sessionId);
    if (held) return held;
    const stored = this.transcripts?.get(sessionId);
    return {
      ...emptyState,
      session: stored?.session ?? null,
      messages: stored?.messages ?? [],
      todos: stored?.todos ?? [],
    };
  }

  /** Holds the state as the newest; drops the oldest idle records beyond the bound. */
  private touch(sessionId: string, state: SessionState): void {
    this.states.delete(sessionId);
    this.states.set(sessionId, state);
    if (this.states.size <= KEPT_RECORDS) return;
    for (const [id, s] of this.states) {
      if (this.states.size <= KEPT_RECORDS) break;
      if (id !== sessionId && s.session?.status !== "busy") this.states.delete(id);
    }
  }
}

/** What a stdio adapter keeps of its sessions: their default directory, the transcript store, the records. */
export interface KeptSessions {
  /** The agent's working directory and the default directory of new sessions. */
  defaultCwd: string;
  transcripts: TranscriptStore;
  records: SessionRecords;
}

export function keptSessions(
  opts: { id: string; store: Store; cwd?: string | undefined; workspace: string },
  sink: EventSink,
): KeptSessions {
  const transcripts = new TranscriptStore(opts.store, opts.id);
  return {
    defaultCwd: path.resolve(opts.cwd ?? opts.workspace),
    transcripts,
    records: new SessionRecords(opts.id, sink, transcripts),
  };
}
