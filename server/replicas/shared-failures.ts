import "server-only";
import type { Redis } from "ioredis";
import { describeError } from "../errors";
import { log } from "../log";
import { hashedKey } from "./hashed-key";
import type { ReplicatedSet } from "./replicated-set";

/** Counts one failure; answers the count and the window's time left (ms). */
const FAIL = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

/**
 * A failure limit counted over every replica (the share pages' unknown tokens per client address),
 * with a synchronous check, as the routes that resolve a share token have: each failure is counted
 * in Redis (`sb:limit:<name>:<hash of the key>`, a fixed window from its first failure, expiring with
 * it), and a key that reaches
 * the limit is put in a `ReplicatedSet` until its window ends, which every replica tests in memory.
 */
export class SharedFailureCounter {
  constructor(
    private redis: Redis,
    private blocked: ReplicatedSet,
    private name: string,
    private limit: number,
    private windowMs: number,
    private now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again (0: not blocked), as every replica has counted it. */
  blockedFor(key: string): number {
    const until = this.blocked.until(`${this.name}:${hashedKey(key)}`);
    return until === undefined ? 0 : Math.max(1, Math.ceil((until - this.now()) / 1000));
  }

  /** Counts a failure for `key` (in the background: the answer to this request does not wait). */
  fail(key: string): void {
    void this.count(key).catch((err: unknown) =>
      log.warn("could not count a failure with the other replicas", { limit: this.name, error: describeError(err) }),
    );
  }

  async count(key: string): Promise<void> {
    const k = hashedKey(key);
    const [n, ttl] = (await this.redis.eval(FAIL, 1, `sb:limit:${this.name}:${k}`, this.windowMs)) as [number, number];
    if (n >= this.limit) await this.blocked.add(`${this.name}:${k}`, this.now() + Math.max(1, ttl));
  }
}
