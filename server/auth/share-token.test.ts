import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashShareToken, isWellFormedShareToken, newShareId, newShareToken, tokenMatches } from "./share-token";
import { FailureLimiter } from "./failure-limiter";

describe("share tokens", () => {
  it("carry at least 128 random bits as base64url", () => {
    const t = newShareToken();
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(t, "base64url").length * 8).toBeGreaterThanOrEqual(128);
    expect(isWellFormedShareToken(t)).toBe(true);
  });

  it("are unique", () => {
    const seen = new Set(Array.from({ length: 2000 }, () => newShareToken()));
    expect(seen.size).toBe(2000);
  });

  it("are stored as their SHA-256, never themselves", () => {
    const t = newShareToken();
    const h = hashShareToken(t);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).toBe(createHash("sha256").update(t).digest("hex"));
    expect(h).not.toContain(t);
    expect(hashShareToken(t)).toBe(h);
    expect(hashShareToken(newShareToken())).not.toBe(h);
  });

  it("match their hash only", () => {
    const t = newShareToken();
    expect(tokenMatches(t, hashShareToken(t))).toBe(true);
    expect(tokenMatches(newShareToken(), hashShareToken(t))).toBe(false);
    expect(tokenMatches(t, "abc")).toBe(false);
  });

  it("reject malformed tokens before any lookup", () => {
    for (const bad of [
      "",
      "abc",
      "x".repeat(42),
      "x".repeat(44),
      `${"a".repeat(42)}=`,
      `${"a".repeat(42)}/`,
      "../../api/backends",
    ]) {
      expect(isWellFormedShareToken(bad), bad).toBe(false);
    }
  });

  it("ids are distinct from tokens", () => {
    expect(newShareId()).toMatch(/^shr_[A-Za-z0-9_-]{16}$/);
  });
});

describe("failure limiter", () => {
  it("blocks a key after the limit until the window ends", () => {
    let now = 1_000_000;
    const l = new FailureLimiter(3, 60_000, () => now);
    expect(l.blockedFor("a")).toBe(0);
    l.fail("a");
    l.fail("a");
    expect(l.blockedFor("a")).toBe(0);
    l.fail("a");
    expect(l.blockedFor("a")).toBe(60);
    expect(l.blockedFor("b")).toBe(0);
    now += 30_000;
    expect(l.blockedFor("a")).toBe(30);
    now += 30_000;
    expect(l.blockedFor("a")).toBe(0);
    l.fail("a");
    expect(l.blockedFor("a")).toBe(0);
  });

  it("keeps its memory bounded", () => {
    const now = 0;
    const l = new FailureLimiter(1, 60_000, () => now, 100);
    for (let i = 0; i < 1000; i++) l.fail(`k${i}`);
    expect((l as unknown as { hits: Map<string, unknown> }).hits.size).toBeLessThanOrEqual(100);
  });
});
