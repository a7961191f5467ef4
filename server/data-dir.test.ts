import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { RevocationList } from "./auth/session-cookie";
import { resolveConsoleToken } from "./auth/token";
import { dataDirOf, defaultDataDir, migrateLegacyDataDir, prepareDataDir, tightenDataDir } from "./data-dir";
import { log } from "./log";
import { SqliteStore } from "./store/sqlite-store";

process.env.SWITCHBOARD_LOG ??= "silent";

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-data-dir-")));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe("the data folder", () => {
  it("defaults to the platform's data directory, never the current folder", () => {
    expect(defaultDataDir({ XDG_DATA_HOME: "/x/data" }, "linux", "/home/u")).toBe("/x/data/switchboard");
    expect(defaultDataDir({}, "linux", "/home/u")).toBe("/home/u/.local/share/switchboard");
    expect(defaultDataDir({ XDG_DATA_HOME: "relative" }, "linux", "/home/u")).toBe("/home/u/.local/share/switchboard");
    expect(defaultDataDir({}, "darwin", "/Users/u")).toBe("/Users/u/Library/Application Support/switchboard");
    expect(defaultDataDir({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32", "C:\\Users\\u")).toBe(
      "C:\\Users\\u\\AppData\\Local\\switchboard",
    );
    expect(dataDirOf({ SWITCHBOARD_DATA_DIR: "/srv/sb" })).toBe("/srv/sb");
    expect(dataDirOf({ XDG_DATA_HOME: "/x/data" }).startsWith(process.cwd() + path.sep)).toBe(false);
  });

  it("moves an old ./.switchboard to the default place, once", () => {
    const cwd = path.join(base, "project");
    fs.mkdirSync(path.join(cwd, ".switchboard"), { recursive: true });
    fs.writeFileSync(path.join(cwd, ".switchboard", "console-token"), "old-token-0123456789\n");
    const env = { XDG_DATA_HOME: path.join(base, "xdg") };
    const r = migrateLegacyDataDir(env, cwd);
    const to = path.join(base, "xdg", "switchboard");
    expect(r).toEqual({ moved: true, from: path.join(cwd, ".switchboard"), to });
    expect(fs.existsSync(path.join(cwd, ".switchboard"))).toBe(false);
    expect(fs.readFileSync(path.join(to, "console-token"), "utf8")).toBe("old-token-0123456789\n");
    expect(migrateLegacyDataDir(env, cwd)).toEqual({ moved: false });
  });

  it("leaves the old folder alone when the new place is in use, or SWITCHBOARD_DATA_DIR is set", () => {
    const cwd = path.join(base, "project2");
    fs.mkdirSync(path.join(cwd, ".switchboard"), { recursive: true });
    const env = { XDG_DATA_HOME: path.join(base, "xdg2") };
    fs.mkdirSync(path.join(base, "xdg2", "switchboard"), { recursive: true });
    fs.writeFileSync(path.join(base, "xdg2", "switchboard", "switchboard.db"), "");
    expect(migrateLegacyDataDir(env, cwd)).toEqual({ moved: false, reason: "target in use" });
    expect(migrateLegacyDataDir({ ...env, SWITCHBOARD_DATA_DIR: path.join(base, "explicit") }, cwd)).toEqual({
      moved: false,
    });
    expect(fs.existsSync(path.join(cwd, ".switchboard"))).toBe(true);
  });
});

describe("the data folder's permissions", () => {
  const posix = process.platform !== "win32";
  const mode = (p: string) => fs.statSync(p).mode & 0o777;

  it.runIf(posix)("is 0700 with 0600 files after a start with SWITCHBOARD_TOKEN set (umask 022)", () => {
    const dir = path.join(base, "fresh", "data");
    const env = { SWITCHBOARD_DATA_DIR: dir, SWITCHBOARD_TOKEN: "a-long-enough-token-value" };
    const old = process.umask(0o022);
    try {
      expect(prepareDataDir(env, base).tightened).toEqual([]);
      const auth = resolveConsoleToken(env);
      expect(auth.source).toBe("env");
      const store = new SqliteStore(path.join(dir, "switchboard.db"));
      store.setMeta("k", "v");
      new RevocationList(path.join(dir, "revoked-sessions.json")).revoke({ id: "s1", exp: Date.now() / 1000 + 60 });
      const files = fs.readdirSync(dir).sort();
      expect(files).toEqual(expect.arrayContaining(["revoked-sessions.json", "switchboard.db", "switchboard.db-wal"]));
      expect(mode(dir)).toBe(0o700);
      for (const f of files) expect([f, mode(path.join(dir, f))]).toEqual([f, 0o600]);
      store.close();
    } finally {
      process.umask(old);
    }
  });

  it.runIf(posix)("tightens a 0755 folder with 0644 files at every start, and says so in one line", () => {
    const dir = path.join(base, "loose");
    fs.mkdirSync(path.join(dir, "sub"), { recursive: true, mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    for (const f of ["switchboard.db", "switchboard.db-wal", "console-token", "revoked-sessions.json"])
      fs.writeFileSync(path.join(dir, f), "x", { mode: 0o644 });
    fs.chmodSync(path.join(dir, "console-token"), 0o640);
    fs.symlinkSync("/etc/hostname", path.join(dir, "link"));
    const before = mode("/etc/hostname");
    const warn = vi.spyOn(log, "warn");
    try {
      const r = prepareDataDir({ SWITCHBOARD_DATA_DIR: dir }, base);
      expect(r.tightened.sort()).toEqual(
        [dir, "console-token", "revoked-sessions.json", "sub", "switchboard.db", "switchboard.db-wal"].sort(),
      );
      expect(mode(dir)).toBe(0o700);
      expect(mode(path.join(dir, "sub"))).toBe(0o700);
      for (const f of ["switchboard.db", "switchboard.db-wal", "console-token", "revoked-sessions.json"])
        expect(mode(path.join(dir, f))).toBe(0o600);
      expect(mode("/etc/hostname")).toBe(before); // a symlink is not followed
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/tightened .*data folder/);
      expect(String(warn.mock.calls[0]![0])).toContain("switchboard.db");
      warn.mockClear();
      expect(prepareDataDir({ SWITCHBOARD_DATA_DIR: dir }, base).tightened).toEqual([]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("is left alone on Windows", () => {
    expect(tightenDataDir(path.join(base, "nowhere"), "win32")).toEqual([]);
    expect(fs.existsSync(path.join(base, "nowhere"))).toBe(false);
  });
});
