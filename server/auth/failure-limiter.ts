import "server-only";

/**
 * A fixed-window failure counter per key (client address): after `limit` failures within
 * `windowMs` the key is blocked until the window ends. Pure apart from the injectable clock.
 */
export class FailureLimiter {
  private hits = new Map<string, { count: number; resetAt: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private now: () => number = Date.now,
    private maxKeys = 10_000,
  ) {}

  /** Seconds until `key` may try again, or 0 when it is not blocked. */
  blockedFor(key: string): number {
    const e = this.hits.get(key);
    if (!e) return 0;
    const t = this.now();
    if (t >= e.resetAt) {
      this.hits.delete(key);
      return 0;
    }
    return e.count >= this.limit ? Math.ceil((e.resetAt - t) / 1000) : 0;
  }

  fail(key: string): void {
    const t = this.now();
    const e = this.hits.get(key);
    if (!e || t >= e.resetAt) {
      if (this.hits.size >= this.maxKeys) this.prune(t);
      this.hits.set(key, { count: 1, resetAt: t + this.windowMs });
    } else e.count++;
  }

  private prune(t: number) {
    for (const [k, e] of this.hits) if (t >= e.resetAt) this.hits.delete(k);
    // Still full (a flood of addresses): forget the oldest entries rather than grow.
    if (this.hits.size >= this.maxKeys) {
      let n = Math.ceil(this.maxKeys / 10);
      for (const k of this.hits.keys()) {
        if (n-- <= 0) break;
        this.hits.delete(k);
      }
    }
  }
}
