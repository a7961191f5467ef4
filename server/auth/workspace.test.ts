import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isApiError } from "../errors";
import { isOutsideRoots, isWithin, parseWorkspaceRoots, resolveWorkspaceDir } from "./workspace";

let base: string;
let ws: string;
let outside: string;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-ws-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  fs.mkdirSync(path.join(ws, "sub", "deeper"), { recursive: true });
  fs.mkdirSync(outside);
  fs.symlinkSync(outside, path.join(ws, "escape"));
  fs.symlinkSync(path.join(ws, "sub"), path.join(ws, "alias"));
  fs.writeFileSync(path.join(ws, "file.txt"), "x");
  fs.mkdirSync(path.join(base, "ws-sibling"));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

async function status(input: string, roots = [ws]): Promise<number | string> {
  try {
    return await resolveWorkspaceDir(input, roots);
  } catch (err) {
    if (isApiError(err)) return err.status;
    throw err;
  }
}

describe("workspace roots", () => {
  it("parses a :-separated list, realpath'd, defaulting to the workspace", () => {
    expect(parseWorkspaceRoots(undefined, ws)).toEqual([ws]);
    expect(parseWorkspaceRoots(` ${ws}/sub : ${outside}:`, ws)).toEqual([path.join(ws, "sub"), outside]);
    expect(parseWorkspaceRoots(`${ws}/alias`, ws)).toEqual([path.join(ws, "sub")]);
  });

  it("isWithin does not confuse a sibling with the same prefix", () => {
    expect(isWithin(path.join(base, "ws-sibling"), ws)).toBe(false);
    expect(isWithin(ws, ws)).toBe(true);
    expect(isWithin(path.join(ws, "a"), ws)).toBe(true);
  });

  it("accepts directories inside, relative or absolute, symlinks resolved", async () => {
    expect(await status(ws)).toBe(ws);
    expect(await status("sub")).toBe(path.join(ws, "sub"));
    expect(await status(path.join(ws, "sub", "deeper", ".."))).toBe(path.join(ws, "sub"));
    expect(await status(path.join(ws, "alias", "deeper"))).toBe(path.join(ws, "sub", "deeper"));
  });

  it("refuses escapes by .., by symlink and by a look-alike sibling with 403", async () => {
    expect(await status(path.join(ws, ".."))).toBe(403);
    expect(await status("../outside")).toBe(403);
    expect(await status(path.join(ws, "escape"))).toBe(403);
    // Not path.join: the OS resolves "escape/.." to the parent of the link's target.
    expect(await status(`${ws}/escape/..`)).toBe(403);
    expect(await status("escape/../outside")).toBe(403);
    expect(await status("escape/../ws")).toBe(ws); // outside/.. is base, base/ws is inside
    expect(await status(path.join(base, "ws-sibling"))).toBe(403);
    expect(await status("/etc")).toBe(403);
    expect(await status("/definitely/not/here")).toBe(403);
    expect(await status(ws, [])).toBe(403);
  });

  it("answers 400 for files, missing directories inside, and junk", async () => {
    expect(await status(path.join(ws, "file.txt"))).toBe(400);
    expect(await status(path.join(ws, "missing"))).toBe(400);
    expect(await status("a\0b")).toBe(400);
    expect(await status("  ")).toBe(400);
  });

  it("allows any of several roots", async () => {
    expect(await status(outside, [ws, outside])).toBe(outside);
  });

  it("refuses the console's data folder and anything inside it (403), also through a symlink", async () => {
    const data = path.join(ws, "console-data");
    fs.mkdirSync(path.join(data, "inner"), { recursive: true });
    fs.symlinkSync(data, path.join(ws, "data-link"));
    const before = process.env.SWITCHBOARD_DATA_DIR;
    process.env.SWITCHBOARD_DATA_DIR = data;
    try {
      expect(await status(data)).toBe(403);
      expect(await status(path.join(data, "inner"))).toBe(403);
      expect(await status(path.join(ws, "data-link"))).toBe(403);
      expect(await status(path.join(ws, "sub"))).toBe(path.join(ws, "sub"));
    } finally {
      if (before === undefined) delete process.env.SWITCHBOARD_DATA_DIR;
      else process.env.SWITCHBOARD_DATA_DIR = before;
    }
  });

  it("tells an escape (403) from a missing directory (400)", async () => {
    const err = async (dir: string) =>
      resolveWorkspaceDir(dir, [ws]).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isOutsideRoots(await err("/etc"))).toBe(true);
    expect(isOutsideRoots(await err(path.join(ws, "missing")))).toBe(false);
    expect(isOutsideRoots(new Error("x"))).toBe(false);
  });
});
