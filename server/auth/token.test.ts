import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deriveCookieKey, generateToken, resolveConsoleToken, safeEqual, TOKEN_FILE } from "./token";

const dirs: string[] = [];
function tmp() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "sb-token-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("console token", () => {
  it("uses SWITCHBOARD_TOKEN when set and writes nothing", () => {
    const dir = tmp();
    const t = resolveConsoleToken({ SWITCHBOARD_TOKEN: "  a-long-enough-token-value  ", SWITCHBOARD_DATA_DIR: dir });
    expect(t).toEqual({ token: "a-long-enough-token-value", source: "env" });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("refuses a short SWITCHBOARD_TOKEN", () => {
    expect(() => resolveConsoleToken({ SWITCHBOARD_TOKEN: "short" })).toThrow(/at least/);
  });

  it("generates ≥128 random bits once, stores them with mode 0600, and reuses them", () => {
    const dir = path.join(tmp(), "nested", "data");
    const first = resolveConsoleToken({ SWITCHBOARD_DATA_DIR: dir });
    expect(first.source).toBe("generated");
    expect(Buffer.from(first.token, "base64url").length).toBeGreaterThanOrEqual(16);
    const file = path.join(dir, TOKEN_FILE);
    expect(first.file).toBe(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const second = resolveConsoleToken({ SWITCHBOARD_DATA_DIR: dir });
    expect(second).toEqual({ token: first.token, source: "file", file });
  });

  it("generates different tokens", () => {
    expect(generateToken()).not.toBe(generateToken());
  });

  it("compares in constant time whatever the lengths", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("", "x")).toBe(false);
  });

  it("derives a cookie key that changes with the token", () => {
    expect(deriveCookieKey("token-one-xxxxxxxx").equals(deriveCookieKey("token-one-xxxxxxxx"))).toBe(true);
    expect(deriveCookieKey("token-one-xxxxxxxx").equals(deriveCookieKey("token-two-xxxxxxxx"))).toBe(false);
  });
});
