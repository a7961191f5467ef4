import "server-only";
import type { Redis } from "ioredis";
import type { LimitDecision } from "../auth/rate-limit";
import { hashedKey } from "./hashed-key";

/**
 * `FixedWindowLimiter` (../auth/rate-limit.ts) counted in Redis, so failed logins split across
 * replicas are counted together: at most `perKey` hits per key and `total` over all keys in each
 * window. A counter's window starts at its first hit (INCR, then PEXPIRE when new), as in memory.
 */

const CHECK = `
local function blocked(key, limit)
  local n = tonumber(redis.call('GET', key) or '0')
  if n >= limit then
    local ttl = redis.call('PTTL', key)
    if ttl > 0 then return ttl end
  end
  return 0
end
local k = blocked(KEYS[1], tonumber(ARGV[1]))
if k > 0 then return {k, 1} end
return {blocked(KEYS[2], tonumber(ARGV[2])), 2}`;

const HIT = `
for i = 1, 2 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return 1`;

export class RedisWindowLimiter {
  constructor(
    private redis: Redis,
    private name: string,
    private opts: { perKey: number; total: number; windowMs: number },
  ) {}

  /** A key of bounded size whatever the client key is (hashed; the counters expire with their window). */
  private keys(key: string): [string, string] {
    return [`sb:limit:${this.name}:k:${hashedKey(key)}`, `sb:limit:${this.name}:all`];
  }

  /** Would one more hit for `key` be allowed now? Does not count. */
  async check(key: string): Promise<LimitDecision> {
    const r = (await this.redis.eval(CHECK, 2, ...this.keys(key), this.opts.perKey, this.opts.total)) as unknown;
    const [ms, which] = Array.isArray(r) ? r.map(Number) : [Number(r), 1];
    if (!(Number(ms) > 0)) return { allowed: true, retryAfter: 0 };
    return { allowed: false, retryAfter: Math.ceil(Number(ms) / 1000), scope: which === 2 ? "total" : "key" };
  }

  /** Counts one hit for `key`. */
  async hit(key: string): Promise<void> {
    await this.redis.eval(HIT, 2, ...this.keys(key), this.opts.windowMs);
  }
}
