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
export class ReplicatedSet {
  private members = new Map<string, number>();
  private started = false;

  constructor(
    private redis: Redis,
    /** A connection of its own: a subscribed connection can do nothing else. */
    private subscriber: Redis,
    private name: string,
    private now: () => number = Date.now,
  ) {}

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
      if (at > 0 && Number.isFinite(until)) this.members.set(message.slice(0, at), until);
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
      const rows = await this.redis.zrangebyscore(this.key, now, "+inf", "WITHSCORES");
      for (let i = 0; i + 1 < rows.length; i += 2) this.members.set(rows[i]!, Number(rows[i + 1]));
    } catch (err) {
      log.warn("could not read a replicated set", {
        name: this.name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** Adds `id` until `until` (epoch ms) on every replica: here at once, elsewhere when announced. */
  async add(id: string, until: number): Promise<void> {
    this.members.set(id, until);
    await this.redis.zadd(this.key, until, id);
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
