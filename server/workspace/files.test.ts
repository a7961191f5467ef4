import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isApiError } from "../errors";
import { listFolder, MAX_FILE_BYTES, readText } from "./files";

let root: string;
let dir: string;

async function code(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isApiError(err) ? err.code : `not an ApiError: ${String(err)}`;
}

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-files-")));
  dir = path.join(root, "project");
  fs.mkdirSync(path.join(dir, "src", "deep"), { recursive: true });
  fs.mkdirSync(path.join(dir, ".git"));
  fs.writeFileSync(path.join(dir, "README.md"), "# hi\n");
  fs.writeFileSync(path.join(dir, "src", "a.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(dir, "src", "deep", "b.ts"), "export const b = 2;\n");
  fs.writeFileSync(path.join(dir, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  fs.writeFileSync(path.join(dir, "big.log"), Buffer.alloc(MAX_FILE_BYTES + 1, 0x61));
  fs.writeFileSync(path.join(root, "secret.txt"), "outside\n");
  fs.symlinkSync(path.join(root, "secret.txt"), path.join(dir, "leak.txt"));
  fs.symlinkSync(root, path.join(dir, "up"));
  fs.symlinkSync(path.join(dir, "src", "a.ts"), path.join(dir, "alias.ts"));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("the file browser's reads", () => {
  it("lists a folder: folders first, by name, without .git; links say where they lead", async () => {
    const top = await listFolder(dir, "");
    expect(top.path).toBe("");
    expect(top.entries.map((e) => `${e.type}:${e.name}`)).toEqual([
      "dir:src",
      "file:alias.ts",
      "file:big.log",
      "file:image.png",
      "link:leak.txt",
      "file:README.md",
      "link:up",
    ]);
    expect(top.entries.find((e) => e.name === "README.md")).toMatchObject({ path: "README.md", size: 5 });
    const src = await listFolder(dir, "src");
    expect(src.entries.map((e) => e.path)).toEqual(["src/deep", "src/a.ts"]);
  });

  it("reads text; a binary file and one over 1 MB say so", async () => {
    expect(await readText(dir, "src/deep/b.ts")).toEqual({
      path: "src/deep/b.ts",
      size: 20,
      text: "export const b = 2;\n",
    });
    expect(await readText(dir, "alias.ts")).toMatchObject({ path: "src/a.ts", text: "export const a = 1;\n" });
    expect(await readText(dir, "image.png")).toEqual({ path: "image.png", size: 8, binary: true });
    expect(await readText(dir, "big.log")).toEqual({ path: "big.log", size: MAX_FILE_BYTES + 1, tooLarge: true });
  });

  it("nothing outside the session's directory: .., absolute paths, links out", async () => {
    expect(await code(readText(dir, "../secret.txt"))).toBe("forbidden");
    expect(await code(readText(dir, "/etc/passwd"))).toBe("forbidden");
    expect(await code(readText(dir, "leak.txt"))).toBe("forbidden");
    expect(await code(listFolder(dir, "up"))).toBe("forbidden");
    expect(await code(listFolder(dir, ".."))).toBe("forbidden");
    expect(await code(readText(dir, "missing.txt"))).toBe("not_found");
    expect(await code(readText(dir, "src"))).toBe("bad_request");
  });
});
