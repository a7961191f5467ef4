import "server-only";
import type { Redis } from "ioredis";
import { z } from "zod";
import { log } from "../log";
import { leaseKey } from "./lease";

/**
 * One log per session in Redis Streams (docs/architecture.md, "Replicas"): `sb:log:<backend>:<session>`,
 * one entry per event with the event's `seq` as its id (`<seq>-0`), so a `Last-Event-ID` means the
 * same on every replica. The backend's owner appends, fenced by its lease; every replica reads from
 * a cursor and follows the stream itself (XREAD BLOCK): frames are stored once, never pushed through
 * pub/sub payloads. The newest `MAX_ENTRIES` are kept (as the single-process ring log), and at most
 * `MAX_LOG_BYTES` of frames: each append trims the oldest entries past either bound, counting the
 * frames' bytes in `sb:logbytes:<backend>:<session>` beside the stream. A frame over
 * `MAX_FRAME_BYTES` is not stored: a `stream.reset` takes its `seq` (a reader reloads the snapshot).
 */

export const MAX_ENTRIES = 10_000;
/** The largest frame (one event's JSON) a log stores; a larger one is replaced by a `stream.reset`. */
export const MAX_FRAME_BYTES = 1_048_576;
/** The most frame bytes one session's log keeps (its oldest entries go first). */
export const MAX_LOG_BYTES = 32 * 1_048_576;

/**
 * Appends only while the backend's lease still holds the owner's token; ids must rise. Then trims
 * the oldest entries while the stream holds more than ARGV[2] entries or ARGV[3] bytes of frames
 * (KEYS[3] counts them; a stream that expired or was deleted starts the count afresh), and keeps the
 * count as long as the stream.
 */
const APPEND = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return redis.error_reply('DEPOSED the lease is no longer held by this replica')
end
local maxLen = tonumber(ARGV[2])
local maxBytes = tonumber(ARGV[3])
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('DEL', KEYS[3]) end
local bytes = tonumber(redis.call('GET', KEYS[3]) or '0')
local n = 0
for i = 4, #ARGV, 2 do
  redis.call('XADD', KEYS[1], ARGV[i] .. '-0', 'f', ARGV[i + 1])
  bytes = bytes + string.len(ARGV[i + 1])
  n = n + 1
end
local len = redis.call('XLEN', KEYS[1])
while len > 1 and (len > maxLen or bytes > maxBytes) do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 16)
  local cut = nil
  for _, e in ipairs(oldest) do
    if len <= 1 or (len <= maxLen and bytes <= maxBytes) then break end
    local fields = e[2]
    for j = 1, #fields, 2 do
      if fields[j] == 'f' then bytes = bytes - string.len(fields[j + 1]) end
    end
    redis.call('XDEL', KEYS[1], e[1])
    len = len - 1
    cut = e[1]
  end
  if cut == nil then break end
end
if bytes < 0 then bytes = 0 end
redis.call('SET', KEYS[3], bytes)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
return n`;

export const logKey = (backendId: string, sessionId: string) => `sb:log:${backendId}:${sessionId}`;
/** The byte count of a session's log (see APPEND). */
export const logBytesKey = (backendId: string, sessionId: string) => `sb:logbytes:${backendId}:${sessionId}`;

/** What takes an oversized event's place in the log: readers reload the snapshot. */
export function oversizedMarker(seq: number): string {
  return JSON.stringify({
    type: "stream.reset",
    reason: "an event too large for the shared log; reload the snapshot",
    seq,
  });
}

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

/**
 * One stream entry as Redis answers it, validated: an id `<seq>-0` and a field `f` whose frame is
 * one line (it is sent as an SSE `data:` line as it is: a line break would let a stored entry forge
 * frames) and within `MAX_FRAME_BYTES`.
 */
const RawEntry = z.tuple([
  z.string().regex(/^\d{1,16}-0$/),
  z.array(z.string()).refine((f) => f.length >= 2 && f.length % 2 === 0),
]);
const Frame = z
  .string()
  .max(MAX_FRAME_BYTES)
  .refine((f) => !/[\r\n]/.test(f), "not one line");

let skipped = 0;
function entries(raw: unknown): LogEntry[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item: unknown) => {
    const e = RawEntry.safeParse(item);
    const fields = e.success ? e.data[1] : [];
    const at = fields.findIndex((v, i) => i % 2 === 0 && v === "f");
    const frame = Frame.safeParse(at >= 0 ? fields[at + 1] : undefined);
    if (!e.success || !frame.success) {
      if (skipped++ % 100 === 0) log.warn("skipped a malformed entry of a session's log in Redis", { skipped });
      return [];
    }
    return [{ seq: Number(e.data[0].split("-")[0]), frame: frame.data }];
  });
}

export class SessionLog {
  constructor(
    private redis: Redis,
    private backendId: string,
    private sessionId: string,
    /** The log's bounds (tests set smaller ones). */
    private limits: { maxEntries: number; maxBytes: number } = { maxEntries: MAX_ENTRIES, maxBytes: MAX_LOG_BYTES },
  ) {}

  private get key() {
    return logKey(this.backendId, this.sessionId);
  }

  /**
   * Appends events (rising `seq`s) under the lease token `token`; DeposedError when it is not held.
   * A frame over `MAX_FRAME_BYTES`, or not one line, is stored as a `stream.reset` (logged).
   */
  async append(token: string, items: LogEntry[]): Promise<void> {
    if (!items.length) return;
    const args = items.flatMap((e) => {
      if (Buffer.byteLength(e.frame, "utf8") <= MAX_FRAME_BYTES && !/[\r\n]/.test(e.frame))
        return [String(e.seq), e.frame];
      log.warn("an event is too large for the shared session log; stored as a stream.reset", {
        backendId: this.backendId,
        sessionId: this.sessionId,
        seq: e.seq,
        bytes: Buffer.byteLength(e.frame, "utf8"),
      });
      return [String(e.seq), oversizedMarker(e.seq)];
    });
    try {
      await this.redis.eval(
        APPEND,
        3,
        this.key,
        leaseKey(this.backendId),
        logBytesKey(this.backendId, this.sessionId),
        token,
        String(this.limits.maxEntries),
        String(this.limits.maxBytes),
        ...args,
      );
    } catch (err) {
      if (err instanceof Error && err.message.startsWith("DEPOSED")) throw new DeposedError();
      throw err;
    }
  }

  /** The entries after `cursor` (exclusive), oldest first, at most `count`. */
  async after(cursor: number, count = 1000): Promise<LogEntry[]> {
    return entries(await this.redis.xrange(this.key, `(${cursor}-0`, "+", "COUNT", count));
  }

  /** The oldest and newest seq the log holds (undefined: empty). */
  async bounds(): Promise<{ first: number; last: number } | undefined> {
    const first = entries(await this.redis.xrange(this.key, "-", "+", "COUNT", 1))[0];
    const last = entries(await this.redis.xrevrange(this.key, "+", "-", "COUNT", 1))[0];
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
            | [string, unknown[]][]
            | null;
          if (stopped) break;
          const raw = res?.[0]?.[1];
          const batch = entries(raw);
          // Past what was read, malformed entries too (they are skipped, not read again).
          const lastRaw = Array.isArray(raw) ? (raw.at(-1) as unknown[] | undefined)?.[0] : undefined;
          if (typeof lastRaw === "string" && /^\d{1,16}-\d{1,16}$/.test(lastRaw)) last = lastRaw;
          else if (batch.length) last = `${batch.at(-1)!.seq}-0`;
          if (batch.length) onEntries(batch);
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
