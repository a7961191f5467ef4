import "server-only";
import type { Redis } from "ioredis";
import { log } from "../log";

/**
 * A set of ids every replica can test synchronously (a hot path: the proxy checks each request's
 * cookie), changed on any replica and seen on all within a second: logouts (session ids), share
 * revocations. Kept in Redis as a sorted set scored by expiry (`sb:set:<name>`), announced on the
 * channel of the same name; each replica holds the live members in memory, loaded at start and
 * updated from the channel (and re-read whenever its subscription comes back after a drop).
 */
/** Members a set holds at most, in Redis and in each replica's memory (the ones expiring last are kept). */
export const REPLICATED_SET_MAX = 10_000;
/** A member longer than this is not one this console adds (session ids, hashed keys): ignored. */
const MAX_MEMBER = 200;

/** Adds a member, drops the expired ones and the ones past the cap, and lets the key expire with its last member. */
const ADD = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], last[2]) end
return 1`;

export class ReplicatedSet {
  private members = new Map<string, number>();
  private started = false;

  constructor(
    private redis: Redis,
    /** A connection of its own: a subscribed connection can do nothing else. */
    private subscriber: Redis,
    private name: string,
    private now: () => number = Date.now,
    private max = REPLICATED_SET_MAX,
  ) {}

  /** Keeps `id` in memory, within the cap: the expired go first, then the soonest to expire. */
  private remember(id: string, until: number): void {
    if (id.length > MAX_MEMBER || !Number.isFinite(until) || until <= this.now()) return;
    this.members.set(id, until);
    if (this.members.size <= this.max) return;
    const now = this.now();
    for (const [k, u] of this.members) if (u <= now) this.members.delete(k);
    if (this.members.size <= this.max) return;
    const soonest = [...this.members].sort((a, b) => a[1] - b[1]);
    for (const [k] of soonest.slice(0, this.members.size - this.max)) this.members.delete(k);
  }

  /** Members held in memory now (for the tests of the bounds). */
  get size(): number {
    return this.members.size;
  }

  private get key() {
    return `sb:set:${this.name}`;
  }

  /** Loads the live members and follows the changes. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.key) return;
      const at = message.lastIndexOf(" ");
      const until = Number(message.slice(at + 1));
      if (at > 0) this.remember(message.slice(0, at), until);
    });
    // A dropped subscription may have missed announcements: read the set again when it is back.
    this.subscriber.on("ready", () => void this.reload());
    await this.subscriber.subscribe(this.key);
    await this.reload();
  }

  private async reload(): Promise<void> {
    try {
      const now = this.now();
      await this.redis.zremrangebyscore(this.key, "-inf", now);
      // The newest `max` (a set another console version let grow is read bounded too).
      const rows = await this.redis.zrevrangebyscore(this.key, "+inf", now, "WITHSCORES", "LIMIT", 0, this.max);
      for (let i = 0; i + 1 < rows.length; i += 2) this.remember(rows[i]!, Number(rows[i + 1]));
    } catch (err) {
      log.warn("could not read a replicated set", {
        name: this.name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** Adds `id` until `until` (epoch ms) on every replica: here at once, elsewhere when announced. */
  async add(id: string, until: number): Promise<void> {
    if (id.length > MAX_MEMBER) throw new Error(`a replicated set member is at most ${MAX_MEMBER} characters`);
    this.remember(id, until);
    await this.redis.eval(ADD, 1, this.key, until, id, this.now(), this.max);
    await this.redis.publish(this.key, `${id} ${until}`);
  }

  /** Until when (epoch ms) `id` is in the set, if it is. */
  until(id: string): number | undefined {
    return this.has(id) ? this.members.get(id) : undefined;
  }

  has(id: string): boolean {
    const until = this.members.get(id);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.members.delete(id);
    return false;
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.subscriber.unsubscribe(this.key).catch(() => undefined);
  }
}
