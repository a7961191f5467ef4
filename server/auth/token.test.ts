import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { agentEnvironment } from "../processes/agent-env";
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

describe("the token in the console's environment", () => {
  it("reads SWITCHBOARD_TOKEN_FILE (a path read at start), and refuses a short, missing or doubled one", () => {
    const dir = tmp();
    const file = path.join(dir, "token");
    fs.writeFileSync(file, "  a-token-from-a-file-0123  \n", { mode: 0o600 });
    expect(resolveConsoleToken({ SWITCHBOARD_TOKEN_FILE: file, SWITCHBOARD_DATA_DIR: dir })).toEqual({
      token: "a-token-from-a-file-0123",
      source: "env",
      file,
    });
    fs.writeFileSync(file, "short\n");
    expect(() => resolveConsoleToken({ SWITCHBOARD_TOKEN_FILE: file })).toThrow(/at least/);
    expect(() => resolveConsoleToken({ SWITCHBOARD_TOKEN_FILE: path.join(dir, "missing") })).toThrow(
      /SWITCHBOARD_TOKEN_FILE/,
    );
    expect(() =>
      resolveConsoleToken({ SWITCHBOARD_TOKEN_FILE: file, SWITCHBOARD_TOKEN: "a-long-enough-token-value" }),
    ).toThrow(/one of/);
  });

  it("drops SWITCHBOARD_TOKEN from process.env once read: no child inherits it, and it still logs in", () => {
    const token = "console-token-from-env-0123456789";
    process.env.SWITCHBOARD_TOKEN = token;
    process.env.LC_SWITCHBOARD_COPY = token; // a copy under another name, e.g. from a wrapper script
    try {
      expect(resolveConsoleToken()).toEqual({ token, source: "env" });
      expect(process.env.SWITCHBOARD_TOKEN).toBeUndefined();
      // read again (another bundle of the same process): the same token, not a generated one
      expect(resolveConsoleToken()).toEqual({ token, source: "env" });
      // any child (it inherits process.env when spawned without an env)
      const child = spawnSync(process.execPath, ["-e", "process.stdout.write(JSON.stringify(process.env))"], {
        encoding: "utf8",
      });
      const childEnv = JSON.parse(child.stdout) as Record<string, string>;
      expect(childEnv.PATH).toBeDefined();
      expect(childEnv.SWITCHBOARD_TOKEN).toBeUndefined();
      // an agent: not under its name, nor a copy under another
      expect(Object.values(agentEnvironment())).not.toContain(token);
    } finally {
      delete process.env.SWITCHBOARD_TOKEN;
      delete process.env.LC_SWITCHBOARD_COPY;
    }
  });
});
