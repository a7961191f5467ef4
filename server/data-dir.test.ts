import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dataDirOf, defaultDataDir, migrateLegacyDataDir } from "./data-dir";

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
