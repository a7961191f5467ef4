import "server-only";

export interface LimitDecision {
  allowed: boolean;
  /** Seconds until the window that blocks this key ends (0 when allowed). */
  retryAfter: number;
}

/**
 * Fixed-window counters: at most `perKey` hits per key and `total` hits over all keys in each
 * window. Used for failed logins, so a guesser is slowed down and a spoofed address (the key comes
 * from X-Forwarded-For) still meets the global cap.
 */
export class FixedWindowLimiter {
  private windows = new Map<string, { count: number; resetAt: number }>();
  private global = { count: 0, resetAt: 0 };

  constructor(private opts: { perKey: number; total: number; windowMs: number }) {}

  /** Would one more hit for `key` be allowed now? Does not count. */
  check(key: string, now = Date.now()): LimitDecision {
    this.prune(now);
    const w = this.windows.get(key);
    if (w && w.count >= this.opts.perKey) return { allowed: false, retryAfter: Math.ceil((w.resetAt - now) / 1000) };
    if (this.global.resetAt > now && this.global.count >= this.opts.total) {
      return { allowed: false, retryAfter: Math.ceil((this.global.resetAt - now) / 1000) };
    }
    return { allowed: true, retryAfter: 0 };
  }

  /** Counts one hit for `key`. */
  hit(key: string, now = Date.now()): void {
    this.prune(now);
    const w = this.windows.get(key);
    if (w) w.count++;
    else this.windows.set(key, { count: 1, resetAt: now + this.opts.windowMs });
    if (this.global.resetAt <= now) this.global = { count: 0, resetAt: now + this.opts.windowMs };
    this.global.count++;
  }

  private prune(now: number) {
    // At most `total` keys can be live per window, so this stays small.
    for (const [k, v] of this.windows) if (v.resetAt <= now) this.windows.delete(k);
  }
}
