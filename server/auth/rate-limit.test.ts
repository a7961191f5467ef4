import { describe, expect, it } from "vitest";
import { FixedWindowLimiter } from "./rate-limit";

describe("FixedWindowLimiter", () => {
  it("allows perKey hits per window, then blocks that key until the window ends", () => {
    const l = new FixedWindowLimiter({ perKey: 3, total: 100, windowMs: 60_000 });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(l.check("a", t0).allowed).toBe(true);
      l.hit("a", t0);
    }
    expect(l.check("a", t0 + 1000)).toEqual({ allowed: false, retryAfter: 59 });
    expect(l.check("b", t0 + 1000).allowed).toBe(true);
    expect(l.check("a", t0 + 60_000).allowed).toBe(true);
  });

  it("caps all keys together, so spoofed addresses do not help", () => {
    const l = new FixedWindowLimiter({ perKey: 10, total: 5, windowMs: 60_000 });
    for (let i = 0; i < 5; i++) l.hit(`spoofed-${i}`, 0);
    expect(l.check("fresh", 10).allowed).toBe(false);
    expect(l.check("fresh", 60_000).allowed).toBe(true);
  });
});
