import "server-only";
import type { Message, Session, TimelineEvent, Usage } from "@/lib/model";
import { ApiError } from "../../errors";
import { pageSessions } from "../shared/session-list";
import type { KeptSessions, SessionRecords } from "../shared/session-records";
import type { TranscriptStore } from "../shared/transcripts";
import { statusOf, type LiveTurn, type SessionRuntime } from "../shared/turn-lifecycle";
import type { ZotTurn } from "./normalize";
import type { HelloInfo, ZotProcess } from "./process";

export const DEFAULT_TITLE = "New session";

const unfinished = (m: Message) => m.role === "assistant" && m.completedAt === undefined;

/** A reply the console kept while its turn ran, when the console stopped: it ends there, and says so. */
function interrupted(m: Message, at: number): Message {
  return {
    ...m,
    completedAt: Math.max(at, m.createdAt),
    error: { name: "Interrupted", message: "The console stopped while this turn ran, and zot's process with it." },
    blocks: m.blocks.map((b) =>
      b.kind === "tool" && (b.status === "pending" || b.status === "running")
        ? { ...b, status: "cancelled" as const }
        : b,
    ),
  };
}

/** A running `zot rpc` process of a session. */
export interface Live {
  zp: ZotProcess;
  hello: HelloInfo;
  /** The model the process uses now (`hello`, then `set_model`). */
  model?: string;
  /** The session's usage when this process started: zot's `cumulative` counts from 0 in each process. */
  base: Usage;
}

/** A prompt (or compaction) in flight. */
export interface Turn extends LiveTurn {
  z: ZotTurn;
  kind: "prompt" | "compact";
  live?: Live;
  /** zot answered `{started:true}`: its events are this turn's from now on. */
  started: boolean;
  aborted: boolean;
}

/** What the adapter knows of one session (the hub holds its timeline state). */
export interface Runtime extends SessionRuntime<Turn> {
  cwd: string;
  session: Session;
  live?: Live;
  starting?: Promise<Live>;
  idleTimer?: ReturnType<typeof setTimeout>;
}

/**
 * The console's own record of zot sessions: zot has none (no session list, no persistence, no way to
 * load a transcript). Sessions live in the console-kept transcript store (../shared/transcripts.ts),
 * loaded on first use; the list is the store's plus the live ones; transcripts are saved from what
 * the adapter emitted (../shared/session-records.ts).
 */
export class ZotSessions {
  private runtimes = new Map<string, Runtime>();
  private records: SessionRecords;
  private transcripts: TranscriptStore;
  private defaultCwd: string;

  constructor(
    private backendId: string,
    kept: KeptSessions,
  ) {
    ({ records: this.records, transcripts: this.transcripts, defaultCwd: this.defaultCwd } = kept);
  }

  /** The one way a session's events leave the adapter: to the hub, and into the session's record. */
  publish(rt: Runtime, events: TimelineEvent[]): void {
    this.records.publish(rt.id, events);
  }

  all(): IterableIterator<Runtime> {
    return this.runtimes.values();
  }

  add(session: Session, cwd: string): Runtime {
    const rt: Runtime = { id: session.id, cwd, session, queued: [] };
    this.runtimes.set(rt.id, rt);
    return rt;
  }

  forget(rt: Runtime): void {
    this.runtimes.delete(rt.id);
    this.records.forget(rt.id);
    this.transcripts.delete(rt.id);
  }

  /** The runtime of a session, loaded from the store on first use; 404 when unknown. */
  get(sessionId: string): Runtime {
    const have = this.runtimes.get(sessionId);
    if (have) return have;
    const stored = this.transcripts.get(sessionId);
    if (!stored) throw ApiError.notFound(`Unknown session: ${sessionId}`);
    const session: Session = { ...stored.session, backendId: this.backendId, status: "idle" };
    const rt = this.add(session, session.directory ?? this.defaultCwd);
    const messages = stored.messages ?? [];
    if (messages.some(unfinished))
      this.persist(
        rt,
        messages.map((m) => (unfinished(m) ? interrupted(m, stored.updatedAt) : m)),
      );
    return rt;
  }

  sessionOf(rt: Runtime): Session {
    return { ...rt.session, status: statusOf(rt) };
  }

  /** The session's messages as the adapter emitted them (on top of what the console kept). */
  messagesOf(rt: Runtime): Message[] {
    return this.records.messages(rt.id);
  }

  /**
   * Keeps the session and its transcript (as emitted, or `messages` when the adapter rewrote them),
   * so a console restart loses nothing.
   */
  persist(rt: Runtime, messages?: Message[]): void {
    if (messages) this.records.seed(rt.id, { session: this.sessionOf(rt), messages, todos: [] });
    else messages = this.messagesOf(rt);
    this.transcripts.save({ session: this.sessionOf(rt), messages, todos: [] });
  }

  list(q: { search?: string; limit: number; cursor?: string }): { items: Session[]; nextCursor?: string } {
    const byId = new Map<string, Session>();
    for (const t of this.transcripts.list())
      byId.set(t.sessionId, { ...t.session, backendId: this.backendId, status: "idle" });
    for (const rt of this.runtimes.values()) byId.set(rt.id, this.sessionOf(rt));
    return pageSessions([...byId.values()], q);
  }
}
