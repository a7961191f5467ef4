import "server-only";
import type { Redis } from "ioredis";
import { z } from "zod";
import { Snapshot, TimelineEvent, type WireEvent } from "@/lib/model";
import { describeError } from "../errors";
import type { SessionJournal } from "../hub/hub";
import { log } from "../log";
import { leaseKey } from "./lease";
import { DeposedError, logBytesKey, logKey, MAX_FRAME_BYTES, SessionLog } from "./session-log";

/** A session's kept state: the base its log's later entries fold onto (`sb:state:<backend>:<session>`). */
const stateKey = (backendId: string, sessionId: string) => `sb:state:${backendId}:${sessionId}`;

/** Kept this long after the session's last event (a session idle for a week starts its log afresh). */
export const LOG_TTL_MS = 7 * 24 * 3_600_000;
/** A new base after this many events, so that opening a channel folds at most this many. */
const CHECKPOINT_EVERY = 1_000;
/** The largest base kept (a larger one is not written: the next owner loads the session afresh). */
export const MAX_STATE_BYTES = 16 * 1_048_576;

/** A log entry read back from Redis, as the hub folds it. */
const StoredEvent = z.intersection(TimelineEvent, z.object({ seq: z.number().int().nonnegative() }));

/** A stored JSON string, parsed and validated; undefined (logged) when it is not what `schema` says. */
function parseStored<T>(schema: z.ZodType<T>, raw: string, what: string, where: Record<string, string>): T | undefined {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    data = undefined;
  }
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  log.warn(`skipped a malformed ${what} read from Redis`, where);
  return undefined;
}

/** Sets the state only while the lease still holds the owner's token, and keeps it as long as the log. */
const CHECKPOINT = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return redis.error_reply('DEPOSED the lease is no longer held by this replica')
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
redis.call('PEXPIRE', KEYS[4], ARGV[3])
return 1`;

interface Pending {
  entries: { seq: number; frame: string }[];
  checkpoint?: Snapshot;
  sinceCheckpoint: number;
  /** The writes of this session, one after the other. */
  tail: Promise<void>;
  scheduled: boolean;
}

/**
 * The hub's journal in replica mode (`SessionJournal`, server/hub/hub.ts): the replica that runs a
 * backend appends each event of its open sessions to the session's Redis Stream, with its `seq` as
 * the entry id (./session-log.ts, fenced by the lease), batched per session and tick (a frame's
 * deltas in one call: the bench's measure), and keeps a base state at each channel's opening, when a
 * session goes idle and every thousand events. The next owner opens the channel from that base and
 * the entries after it, so the `seq`s go on and a browser's cursor resumes with no gap or repeat.
 */
export class RedisSessionJournal implements SessionJournal {
  private sessions = new Map<string, Pending>();
  private refused = 0;

  constructor(
    private redis: Redis,
    /** The lease token while this replica runs the backend (undefined: not journaled here). */
    private token: (backendId: string) => string | undefined,
  ) {}

  covers(backendId: string): boolean {
    return this.token(backendId) !== undefined;
  }

  private pending(backendId: string, sessionId: string): Pending {
    const k = `${backendId}\u0000${sessionId}`;
    let p = this.sessions.get(k);
    if (!p) {
      p = { entries: [], sinceCheckpoint: 0, tail: Promise.resolve(), scheduled: false };
      this.sessions.set(k, p);
    }
    return p;
  }

  opened(backendId: string, sessionId: string, snapshot: Snapshot): void {
    const p = this.pending(backendId, sessionId);
    p.checkpoint = snapshot;
    p.sinceCheckpoint = 0;
    this.schedule(backendId, sessionId, p);
  }

  record(backendId: string, sessionId: string, wire: WireEvent, snapshot: () => Snapshot): void {
    const p = this.pending(backendId, sessionId);
    const frame = JSON.stringify(wire);
    p.entries.push({ seq: wire.seq, frame });
    p.sinceCheckpoint++;
    // An event too large for the log is stored as a `stream.reset` (./session-log.ts): a base taken
    // now covers it, so the next owner does not lose it.
    const oversized = frame.length > MAX_FRAME_BYTES / 4 && Buffer.byteLength(frame, "utf8") > MAX_FRAME_BYTES;
    if (
      oversized ||
      (wire.type === "session.status" && wire.status === "idle") ||
      p.sinceCheckpoint >= CHECKPOINT_EVERY
    ) {
      p.checkpoint = snapshot();
      p.sinceCheckpoint = 0;
    }
    this.schedule(backendId, sessionId, p);
  }

  private schedule(backendId: string, sessionId: string, p: Pending) {
    if (p.scheduled) return;
    p.scheduled = true;
    setImmediate(() => {
      p.scheduled = false;
      const entries = p.entries;
      const checkpoint = p.checkpoint;
      p.entries = [];
      p.checkpoint = undefined;
      p.tail = p.tail.then(() => this.write(backendId, sessionId, entries, checkpoint));
    });
  }

  private async write(backendId: string, sessionId: string, entries: Pending["entries"], checkpoint?: Snapshot) {
    const token = this.token(backendId);
    try {
      if (!token) throw new DeposedError();
      if (entries.length) await new SessionLog(this.redis, backendId, sessionId).append(token, entries);
      // The base is written after the entries it covers, so a reader never finds a base newer than its log.
      const state = checkpoint ? JSON.stringify(checkpoint) : undefined;
      if (state !== undefined && Buffer.byteLength(state, "utf8") > MAX_STATE_BYTES)
        log.warn("a session's state is too large to keep in Redis; the next owner loads it afresh", {
          backendId,
          sessionId,
        });
      else if (state !== undefined)
        await this.redis.eval(
          CHECKPOINT,
          4,
          stateKey(backendId, sessionId),
          leaseKey(backendId),
          logKey(backendId, sessionId),
          logBytesKey(backendId, sessionId),
          token,
          state,
          LOG_TTL_MS,
        );
    } catch (err) {
      const deposed = err instanceof DeposedError || (err instanceof Error && err.message.startsWith("DEPOSED"));
      if (this.refused++ % 100 === 0)
        log.warn(
          deposed
            ? "refused a write to a session's log: this replica no longer holds the backend's lease"
            : "could not write a session's log",
          { backendId, sessionId, error: describeError(err) },
        );
    }
  }

  async restore(backendId: string, sessionId: string): Promise<{ checkpoint?: Snapshot; entries: WireEvent[] }> {
    const where = { backendId, sessionId };
    const raw = await this.redis.get(stateKey(backendId, sessionId));
    // Every stored value is validated; a malformed one is logged and skipped, never folded.
    const checkpoint = raw ? parseStored(Snapshot, raw, "session state", where) : undefined;
    const all = await new SessionLog(this.redis, backendId, sessionId).after(0, 20_000);
    const entries = all.flatMap((e) => {
      const event = parseStored(StoredEvent, e.frame, "session log entry", where);
      return event && event.seq === e.seq ? [event as WireEvent] : [];
    });
    // A base is usable only when the log holds every entry after it.
    const first = entries[0]?.seq;
    const usable = checkpoint && (first === undefined || first <= checkpoint.seq + 1);
    return { ...(usable ? { checkpoint } : {}), entries };
  }

  forget(backendId: string, sessionId: string): void {
    this.sessions.delete(`${backendId}\u0000${sessionId}`);
    void this.redis
      .del(logKey(backendId, sessionId), stateKey(backendId, sessionId), logBytesKey(backendId, sessionId))
      .catch(() => undefined);
  }
}
