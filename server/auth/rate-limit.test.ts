import { describe, expect, it } from "vitest";
import { FixedWindowLimiter, SlowLane } from "./rate-limit";

describe("FixedWindowLimiter", () => {
  it("allows perKey hits per window, then blocks that key until the window ends", () => {
    const l = new FixedWindowLimiter({ perKey: 3, total: 100, windowMs: 60_000 });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(l.check("a", t0).allowed).toBe(true);
      l.hit("a", t0);
    }
    expect(l.check("a", t0 + 1000)).toEqual({ allowed: false, retryAfter: 59, scope: "key" });
    expect(l.check("b", t0 + 1000).allowed).toBe(true);
    expect(l.check("a", t0 + 60_000).allowed).toBe(true);
  });

  it("caps all keys together, so spoofed addresses do not help", () => {
    const l = new FixedWindowLimiter({ perKey: 10, total: 5, windowMs: 60_000 });
    for (let i = 0; i < 5; i++) l.hit(`spoofed-${i}`, 0);
    expect(l.check("fresh", 10)).toMatchObject({ allowed: false, scope: "total" });
    expect(l.check("fresh", 60_000).allowed).toBe(true);
  });
});

describe("SlowLane", () => {
  it("lets attempts through one at a time, and refuses at once when too many wait", async () => {
    const lane = new SlowLane(20, 3);
    const order: number[] = [];
    const runs = [0, 1, 2, 3, 4].map((i) => lane.pass().then((ok) => (ok ? order.push(i) : order.push(-1))));
    await Promise.all(runs);
    // Three waited their turn in order; the two beyond the cap were refused without waiting.
    expect(order.filter((x) => x >= 0)).toEqual([0, 1, 2]);
    expect(order.filter((x) => x < 0)).toHaveLength(2);
    expect(order.slice(0, 2)).toEqual([-1, -1]);
    expect(await lane.pass()).toBe(true);
  });
});

describe("FixedWindowLimiter bounds", () => {
  it("keeps at most maxKeys windows, however many distinct clients fail in one window (the oldest dropped)", () => {
    const l = new FixedWindowLimiter({ perKey: 10, total: 100, windowMs: 60_000, maxKeys: 500 });
    for (let i = 0; i < 1000; i++) l.hit(`client-${i}-${"x".repeat(1000)}`, 0);
    expect(l.size).toBeLessThanOrEqual(500);
    // The newest clients are still counted; the total still holds.
    expect(l.check(`client-999-${"x".repeat(1000)}`, 1).allowed).toBe(false);
    expect(l.check("fresh", 1).scope).toBe("total");
  });
});
