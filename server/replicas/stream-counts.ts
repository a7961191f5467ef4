import "server-only";
import type { Redis } from "ioredis";
import { describeError } from "../errors";
import { log } from "../log";

const INDEX = "sb:stream-counts";
const TOTAL = "*";
/** Clients read from one replica's counts at most (its own quota holds at most 1,000 streams). */
const MAX_CLIENTS = 2_000;
const key = (replicaId: string) => `sb:streams:${replicaId}`;

/**
 * The public share streams open on the other replicas, per client address and in all, so the
 * stream quota (server/shares/stream-quota.ts) counts a client's streams wherever the load balancer
 * sent them. Each replica publishes its own counts every `periodMs` (a hash that expires if the
 * replica dies) and reads the others'; the quota's check stays synchronous, on counts at most a
 * period old.
 */
export class SharedStreamCounts {
  private others = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private redis: Redis,
    private replicaId: string,
    /** This replica's open streams per client address (and `*`: all of them). */
    private local: () => Record<string, number>,
    private periodMs = 1_000,
  ) {}

  /** Streams open on the other replicas: of one client address, or all. */
  elsewhere(client?: string): number {
    return this.others.get(client ?? TOTAL) ?? 0;
  }

  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.periodMs);
    this.timer.unref?.();
  }

  async tick(): Promise<void> {
    try {
      const now = Date.now();
      const ttl = this.periodMs * 3;
      const mine = this.local();
      const tx = this.redis.multi().del(key(this.replicaId));
      if (Object.keys(mine).length) tx.hset(key(this.replicaId), mine);
      await tx
        .pexpire(key(this.replicaId), ttl)
        .zadd(INDEX, now + ttl, this.replicaId)
        .zremrangebyscore(INDEX, "-inf", now)
        .exec();
      const ids = (await this.redis.zrangebyscore(INDEX, now, "+inf")).filter((id) => id !== this.replicaId);
      const others = new Map<string, number>();
      for (const id of ids) {
        const counts = await this.redis.hgetall(key(id));
        // What another replica wrote, read as counts (a client key is an address: ../auth/client-address.ts).
        for (const [client, n] of Object.entries(counts).slice(0, MAX_CLIENTS)) {
          const v = Number(n);
          if (client.length <= 100 && Number.isSafeInteger(v) && v > 0)
            others.set(client, (others.get(client) ?? 0) + v);
        }
      }
      this.others = others;
    } catch (err) {
      log.warn("could not share the open share streams' counts", { error: describeError(err) });
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.redis
      .multi()
      .del(key(this.replicaId))
      .zrem(INDEX, this.replicaId)
      .exec()
      .catch(() => undefined);
  }
}
