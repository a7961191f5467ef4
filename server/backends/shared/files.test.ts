import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isApiError } from "../../errors";
import {
  ConfinedPathError,
  confinePath,
  isInside,
  openConfined,
  readConfinedText,
  resolveSessionDirectory,
  textSlice,
  writeConfinedText,
} from "./files";

let root: string;
let cwd: string;
beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-files-")));
  cwd = path.join(root, "ws");
  fs.mkdirSync(path.join(cwd, "sub"), { recursive: true });
  fs.writeFileSync(path.join(cwd, "note.txt"), "a\nb\nc\nd");
  fs.writeFileSync(path.join(root, "secret.txt"), "no");
  fs.symlinkSync(path.join(root, "secret.txt"), path.join(cwd, "link-out.txt"));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const reason = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => (e instanceof ConfinedPathError ? e.reason : String(e)),
  );
const status = (p: Promise<unknown>) =>
  p.then(
    (v) => v,
    (e: unknown) => (isApiError(e) ? e.status : String(e)),
  );

describe("files", () => {
  it("confines an agent's paths to the session's directory, symlinks resolved", async () => {
    expect(await confinePath(cwd, path.join(cwd, "note.txt"), false)).toBe(path.join(cwd, "note.txt"));
    expect(await confinePath(cwd, path.join(cwd, "new.txt"), true)).toBe(path.join(cwd, "new.txt"));
    expect(await reason(confinePath(cwd, "note.txt", false))).toBe("not-absolute");
    expect(await reason(confinePath(cwd, path.join(cwd, "missing.txt"), false))).toBe("not-found");
    expect(await reason(confinePath(cwd, path.join(cwd, "nodir", "x.txt"), true))).toBe("not-found");
    expect(await reason(confinePath(cwd, path.join(cwd, "link-out.txt"), false))).toBe("outside");
    expect(await reason(confinePath(cwd, path.join(cwd, "..", "secret.txt"), false))).toBe("outside");
  });

  it("never writes outside through a dangling link or a linked folder; reads stay inside too", async () => {
    const absent = path.join(root, "authorized_keys");
    fs.symlinkSync(absent, path.join(cwd, "dangling.md"));
    fs.mkdirSync(path.join(root, "out-dir"));
    fs.symlinkSync(path.join(root, "out-dir"), path.join(cwd, "linked-dir"));
    expect(await reason(confinePath(cwd, path.join(cwd, "dangling.md"), true))).toBe("outside");
    expect(await reason(writeConfinedText(cwd, path.join(cwd, "dangling.md"), "pwned"))).toBe("outside");
    expect(fs.existsSync(absent)).toBe(false);
    expect(await reason(writeConfinedText(cwd, path.join(cwd, "linked-dir", "x.txt"), "pwned"))).toBe("outside");
    expect(fs.readdirSync(path.join(root, "out-dir"))).toEqual([]);
    expect(await reason(writeConfinedText(cwd, path.join(cwd, "link-out.txt"), "pwned"))).toBe("outside");
    expect(fs.readFileSync(path.join(root, "secret.txt"), "utf8")).toBe("no");
    expect(await reason(readConfinedText(cwd, path.join(cwd, "link-out.txt")))).toBe("outside");
    expect(await reason(readConfinedText(cwd, path.join(cwd, "dangling.md")))).toBe("not-found");
    expect(await reason(writeConfinedText(cwd, path.join(cwd, "sub"), "x"))).toBe("not-a-file");
    // Inside, writes and reads work (a new file, an existing one shortened, a link that stays inside).
    await writeConfinedText(cwd, path.join(cwd, "sub", "new.md"), "hello");
    expect(await readConfinedText(cwd, path.join(cwd, "sub", "new.md"))).toBe("hello");
    await writeConfinedText(cwd, path.join(cwd, "sub", "new.md"), "hi");
    expect(fs.readFileSync(path.join(cwd, "sub", "new.md"), "utf8")).toBe("hi");
    fs.symlinkSync(path.join(cwd, "sub", "new.md"), path.join(cwd, "link-in.md"));
    await writeConfinedText(cwd, path.join(cwd, "link-in.md"), "via link");
    expect(fs.readFileSync(path.join(cwd, "sub", "new.md"), "utf8")).toBe("via link");
    expect(fs.lstatSync(path.join(cwd, "link-in.md")).isSymbolicLink()).toBe(true);
  });

  it("does not follow a folder or link swapped in between the check and the open", async () => {
    fs.mkdirSync(path.join(cwd, "swap"));
    fs.mkdirSync(path.join(root, "swap-out"));
    fs.writeFileSync(path.join(root, "swap-out", "old.txt"), "outside");
    const target = path.join(cwd, "swap", "new.txt");
    const real = await confinePath(cwd, target, true);
    // The parent folder becomes a link to outside after the check.
    fs.renameSync(path.join(cwd, "swap"), path.join(cwd, "swap-was"));
    fs.symlinkSync(path.join(root, "swap-out"), path.join(cwd, "swap"));
    expect(await reason(openConfined(cwd, target, real, true))).toBe("outside");
    expect(fs.readdirSync(path.join(root, "swap-out"))).toEqual(["old.txt"]);
    // The file itself becomes a link after the check.
    const file = path.join(cwd, "swap-was", "f.txt");
    fs.writeFileSync(file, "inside");
    const realFile = await confinePath(cwd, file, true);
    fs.rmSync(file);
    fs.symlinkSync(path.join(root, "swap-out", "old.txt"), file);
    expect(await reason(openConfined(cwd, file, realFile, true))).toBe("outside");
    expect(await reason(openConfined(cwd, file, realFile, false))).toBe("outside");
    expect(fs.readFileSync(path.join(root, "swap-out", "old.txt"), "utf8")).toBe("outside");
  });

  it("slices text by lines", () => {
    expect(textSlice("a\nb\nc\nd")).toBe("a\nb\nc\nd");
    expect(textSlice("a\nb\nc\nd", 2, 2)).toBe("b\nc");
    expect(textSlice("a\nb\nc\nd", 3)).toBe("c\nd");
    expect(textSlice("a\nb\nc\nd", undefined, 1)).toBe("a");
  });

  it("resolves a new session's directory inside the agent's directory or the workspace", async () => {
    expect(await resolveSessionDirectory(undefined, cwd, cwd)).toBe(cwd);
    expect(await resolveSessionDirectory("sub", cwd, cwd)).toBe(path.join(cwd, "sub"));
    expect(await status(resolveSessionDirectory("missing", cwd, cwd))).toBe(400);
    expect(await status(resolveSessionDirectory("note.txt", cwd, cwd))).toBe(400);
    expect(await status(resolveSessionDirectory(root, cwd, cwd))).toBe(403);
    expect(await resolveSessionDirectory(root, cwd, root)).toBe(root);
    // A workspace root beside the agent's directory (a session's worktree sits beside its repository).
    expect(await resolveSessionDirectory(root, cwd, { workspace: cwd, workspaceRoots: [root] })).toBe(root);
    expect(isInside("/a/b", "/a/b/c")).toBe(true);
    expect(isInside("/a/b", "/a/bc")).toBe(false);
  });
});
