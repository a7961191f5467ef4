import "server-only";
import type { Redis } from "ioredis";
import { leaseKey } from "./lease";

/**
 * One log per session in Redis Streams (docs/architecture.md, "Replicas"): `sb:log:<backend>:<session>`,
 * one entry per event with the event's `seq` as its id (`<seq>-0`), so a `Last-Event-ID` means the
 * same on every replica. The backend's owner appends, fenced by its lease; every replica reads from
 * a cursor and follows the stream itself (XREAD BLOCK): frames are stored once, never pushed through
 * pub/sub payloads. The newest `MAX_ENTRIES` are kept (as the single-process ring log).
 */

export const MAX_ENTRIES = 10_000;

/** Appends only while the backend's lease still holds the owner's token; ids must rise. */
const APPEND = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return redis.error_reply('DEPOSED the lease is no longer held by this replica')
end
local n = 0
for i = 3, #ARGV, 2 do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], ARGV[i] .. '-0', 'f', ARGV[i + 1])
  n = n + 1
end
return n`;

export const logKey = (backendId: string, sessionId: string) => `sb:log:${backendId}:${sessionId}`;

export interface LogEntry {
  seq: number;
  frame: string;
}

/** The owner's writes were refused: another replica holds the backend now. */
export class DeposedError extends Error {
  constructor() {
    super("This replica no longer owns the backend: its writes are refused");
    this.name = "DeposedError";
  }
}

function entries(raw: [string, string[]][] | null | undefined): LogEntry[] {
  return (raw ?? []).flatMap(([id, fields]) => {
    const at = fields.indexOf("f");
    const frame = at >= 0 ? fields[at + 1] : undefined;
    return frame === undefined ? [] : [{ seq: Number(id.split("-")[0]), frame }];
  });
}

export class SessionLog {
  constructor(
    private redis: Redis,
    private backendId: string,
    private sessionId: string,
  ) {}

  private get key() {
    return logKey(this.backendId, this.sessionId);
  }

  /** Appends events (rising `seq`s) under the lease token `token`; DeposedError when it is not held. */
  async append(token: string, items: LogEntry[]): Promise<void> {
    if (!items.length) return;
    const args = items.flatMap((e) => [String(e.seq), e.frame]);
    try {
      await this.redis.eval(APPEND, 2, this.key, leaseKey(this.backendId), token, String(MAX_ENTRIES), ...args);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith("DEPOSED")) throw new DeposedError();
      throw err;
    }
  }

  /** The entries after `cursor` (exclusive), oldest first, at most `count`. */
  async after(cursor: number, count = 1000): Promise<LogEntry[]> {
    return entries((await this.redis.xrange(this.key, `(${cursor}-0`, "+", "COUNT", count)) as [string, string[]][]);
  }

  /** The oldest and newest seq the log holds (undefined: empty). */
  async bounds(): Promise<{ first: number; last: number } | undefined> {
    const first = entries((await this.redis.xrange(this.key, "-", "+", "COUNT", 1)) as [string, string[]][])[0];
    const last = entries((await this.redis.xrevrange(this.key, "+", "-", "COUNT", 1)) as [string, string[]][])[0];
    return first && last ? { first: first.seq, last: last.seq } : undefined;
  }

  /**
   * Whether a subscriber at `cursor` can resume without a gap: the log holds every entry after it
   * (its oldest entry is at most `cursor + 1`), or nothing was written after it.
   */
  async holds(cursor: number): Promise<boolean> {
    const b = await this.bounds();
    return !b || cursor >= b.last || b.first <= cursor + 1;
  }

  /**
   * Follows the log from `cursor` on a connection of its own (a blocking read holds it): `onEntries`
   * gets every batch in order; the returned function stops following.
   */
  follow(reader: Redis, cursor: number, onEntries: (batch: LogEntry[]) => void): () => void {
    let stopped = false;
    let last = `${cursor}-0`;
    void (async () => {
      while (!stopped) {
        try {
          const res = (await reader.xread("COUNT", 1000, "BLOCK", 2000, "STREAMS", this.key, last)) as
            | [string, [string, string[]][]][]
            | null;
          if (stopped) break;
          const batch = entries(res?.[0]?.[1]);
          if (batch.length) {
            last = `${batch.at(-1)!.seq}-0`;
            onEntries(batch);
          }
        } catch {
          if (stopped) break;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    })();
    return () => {
      stopped = true;
      reader.disconnect();
    };
  }
}
