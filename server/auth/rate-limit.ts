import "server-only";

export interface LimitDecision {
  allowed: boolean;
  /** Seconds until the window that blocks this key ends (0 when allowed). */
  retryAfter: number;
  /** What blocks it: this key's own count, or the count over every key. */
  scope?: "key" | "total";
}

/**
 * Fixed-window counters: at most `perKey` hits per key and `total` hits over all keys in each
 * window. Used for failed logins (the key is the client's address: ./client-address.ts): a client
 * over its own count is refused; over the total, every attempt goes through the `SlowLane`.
 */
export class FixedWindowLimiter {
  private windows = new Map<string, { count: number; resetAt: number }>();
  private global = { count: 0, resetAt: 0 };

  constructor(private opts: { perKey: number; total: number; windowMs: number; maxKeys?: number }) {}

  /** Windows kept now (at most `maxKeys`, 10,000 by default). */
  get size(): number {
    return this.windows.size;
  }

  /** Would one more hit for `key` be allowed now? Does not count. */
  check(key: string, now = Date.now()): LimitDecision {
    this.prune(now);
    const w = this.windows.get(key);
    if (w && w.count >= this.opts.perKey)
      return { allowed: false, retryAfter: Math.ceil((w.resetAt - now) / 1000), scope: "key" };
    if (this.global.resetAt > now && this.global.count >= this.opts.total) {
      return { allowed: false, retryAfter: Math.ceil((this.global.resetAt - now) / 1000), scope: "total" };
    }
    return { allowed: true, retryAfter: 0 };
  }

  /** Counts one hit for `key`. */
  hit(key: string, now = Date.now()): void {
    this.prune(now);
    const w = this.windows.get(key);
    if (w) w.count++;
    else {
      // Full (a flood of addresses): forget the oldest windows rather than grow.
      const max = this.opts.maxKeys ?? 10_000;
      if (this.windows.size >= max)
        for (const k of this.windows.keys()) {
          if (this.windows.size < max) break;
          this.windows.delete(k);
        }
      this.windows.set(key, { count: 1, resetAt: now + this.opts.windowMs });
    }
    if (this.global.resetAt <= now) this.global = { count: 0, resetAt: now + this.opts.windowMs };
    this.global.count++;
  }

  private prune(now: number) {
    // Expired windows go; `hit` caps the rest at `maxKeys` (failures refused while the slow lane
    // is full still count, from however many addresses).
    for (const [k, v] of this.windows) if (v.resetAt <= now) this.windows.delete(k);
  }
}

/**
 * What failed logins over the total (from every address together) meet: one attempt at a time, at
 * most one per `spacingMs`, and at most `maxWaiting` waiting (more are refused). A right token still
 * gets in, after its turn; a flood of guesses from many addresses is held to one a second, and so
 * cannot lock everyone out.
 */
export class SlowLane {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(
    private spacingMs = 1_000,
    private maxWaiting = 8,
  ) {}

  /** Waits for a turn; false (at once) when the lane is full. */
  async pass(): Promise<boolean> {
    if (this.waiting >= this.maxWaiting) return false;
    this.waiting++;
    const turn = this.tail;
    this.tail = turn.then(() => new Promise((r) => setTimeout(r, this.spacingMs).unref?.()));
    try {
      await turn;
      return true;
    } finally {
      this.waiting--;
    }
  }
}
