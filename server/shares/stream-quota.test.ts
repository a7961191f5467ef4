import { describe, expect, it } from "vitest";
import { StreamQuota } from "./stream-quota";

describe("StreamQuota", () => {
  it("refuses the 21st stream of one address while another address still gets one", () => {
    const q = new StreamQuota(20, 1000);
    const held = Array.from({ length: 20 }, () => q.acquire("203.0.113.1"));
    expect(held.every((h) => h.ok)).toBe(true);
    expect(q.acquire("203.0.113.1")).toEqual({ ok: false, scope: "client" });
    expect(q.acquire("203.0.113.2").ok).toBe(true);
    expect(q.count("203.0.113.1")).toBe(20);
    expect(q.count()).toBe(21);
  });

  it("gives a slot back once per release, and caps the total", () => {
    const q = new StreamQuota(2, 3);
    const a = q.acquire("a");
    const b = q.acquire("a");
    expect(q.acquire("a").ok).toBe(false);
    if (!a.ok || !b.ok) throw new Error("expected slots");
    a.release();
    a.release();
    expect(q.count("a")).toBe(1);
    expect(q.acquire("a").ok).toBe(true);
    expect(q.acquire("b").ok).toBe(true);
    expect(q.acquire("c")).toEqual({ ok: false, scope: "total" });
  });
});
