import "server-only";
import type { Redis } from "ioredis";
import { z } from "zod";
import { log } from "../log";

/**
 * One owner per backend across the replicas (docs/architecture.md, "Replicas"): a lease in Redis,
 * `sb:lease:<backend>` = `<replica>:<epoch>` with a time to live. Taking a free lease increments the
 * backend's epoch (`sb:epoch:<backend>`); the owner renews it every third of its time; a replica that
 * dies or stalls past it loses it, and the next one to ask takes it with a higher epoch. The epoch
 * fences the owner's writes: the session logs append only while the lease still says
 * `<replica>:<epoch>` (./session-log.ts), so a deposed owner's late writes are refused.
 */

const ACQUIRE = `
local cur = redis.call('GET', KEYS[1])
if not cur then
  local epoch = redis.call('INCR', KEYS[2])
  redis.call('SET', KEYS[1], ARGV[1] .. ':' .. epoch, 'PX', ARGV[2])
  return epoch
end
local sep = string.find(cur, ':[^:]*$')
if string.sub(cur, 1, sep - 1) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(string.sub(cur, sep + 1))
end
return 0`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

export const leaseKey = (backendId: string) => `sb:lease:${backendId}`;
const epochKey = (backendId: string) => `sb:epoch:${backendId}`;

/** A lease's value as read from Redis: `<replica>:<epoch>` (a replica id has no ':' nor spaces). */
const LeaseValue = z
  .string()
  .max(300)
  .regex(/^[^\s:]{1,200}:[1-9]\d{0,15}$/)
  .transform((v) => {
    const at = v.lastIndexOf(":");
    return { replica: v.slice(0, at), epoch: Number(v.slice(at + 1)) };
  });

/** Who holds a backend's lease now, if anyone (a malformed value is logged and taken as nobody). */
export async function leaseHolder(
  redis: Redis,
  backendId: string,
): Promise<{ replica: string; epoch: number } | undefined> {
  const v = await redis.get(leaseKey(backendId));
  if (v === null) return undefined;
  const parsed = LeaseValue.safeParse(v);
  if (!parsed.success) {
    log.warn("skipped a malformed lease read from Redis", { backend: backendId });
    return undefined;
  }
  return parsed.data;
}

export interface LeaseEvents {
  /** This replica holds the lease from now on, with this epoch: start the backend's agents. */
  acquired(epoch: number): void;
  /** This replica lost the lease (renewal refused or too late): stop the backend's agents now. */
  lost(epoch: number): void;
}

/**
 * A replica's claim on one backend: it asks for the lease every `ttlMs / 3` while it does not hold
 * it, renews it at the same pace while it does, and says when it gains or loses it.
 */
export class BackendLease {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private held: number | undefined;
  private stopped = false;
  /** When the last renewal was answered: a renewal later than the time to live is a loss. */
  private renewedAt = 0;

  constructor(
    private redis: Redis,
    private backendId: string,
    private replicaId: string,
    private events: LeaseEvents,
    private ttlMs = 5_000,
  ) {}

  /** The epoch this replica holds the lease under, if it does. */
  get epoch(): number | undefined {
    return this.held;
  }

  /** The value the lease has while this replica holds it (what fenced writes compare). */
  get token(): string | undefined {
    return this.held === undefined ? undefined : `${this.replicaId}:${this.held}`;
  }

  /**
   * Held, and renewed within the time to live by this process's clock: what a fenced write checks
   * (a process stalled past its lease has not yet heard that it lost it, but knows it may have).
   */
  get valid(): boolean {
    return this.held !== undefined && Date.now() - this.renewedAt < this.ttlMs;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  /** Stops asking; releases the lease if held (the next replica takes it at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const token = this.token;
    if (token !== undefined) {
      const epoch = this.held!;
      this.held = undefined;
      await this.redis.eval(RELEASE, 1, leaseKey(this.backendId), token).catch(() => undefined);
      this.events.lost(epoch);
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const started = Date.now();
    try {
      if (this.held === undefined) {
        const epoch = Number(
          await this.redis.eval(
            ACQUIRE,
            2,
            leaseKey(this.backendId),
            epochKey(this.backendId),
            this.replicaId,
            this.ttlMs,
          ),
        );
        if (epoch > 0 && !this.stopped) {
          this.held = epoch;
          this.renewedAt = started;
          this.events.acquired(epoch);
        }
      } else {
        const ok = Number(await this.redis.eval(RENEW, 1, leaseKey(this.backendId), this.token!, this.ttlMs));
        // Answered, but after the lease could have run out (the process was stopped): it is not ours.
        if (ok !== 1 || Date.now() - this.renewedAt > this.ttlMs) this.lose();
        else this.renewedAt = started;
      }
    } catch (err) {
      log.warn("lease check failed", {
        backend: this.backendId,
        error: err instanceof Error ? err.message : String(err),
      });
      if (this.held !== undefined && Date.now() - this.renewedAt > this.ttlMs) this.lose();
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), Math.max(50, Math.floor(this.ttlMs / 3)));
    this.timer.unref?.();
  }

  private lose() {
    const epoch = this.held;
    this.held = undefined;
    if (epoch !== undefined) {
      log.warn("lost the backend's lease; stopping its agents here", { backend: this.backendId, epoch });
      this.events.lost(epoch);
    }
  }
}
