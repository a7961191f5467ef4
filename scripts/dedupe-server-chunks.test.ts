import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dedupeServerChunks } from "./dedupe-server-chunks.mjs";

let dist = "";
afterEach(() => {
  if (dist) fs.rmSync(dist, { recursive: true, force: true });
});

function write(rel: string, text: string) {
  const p = path.join(dist, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}
const read = (rel: string) => fs.readFileSync(path.join(dist, rel), "utf8");

describe("dedupeServerChunks", () => {
  it("points every reference to a copy of the same code at one file of the same folder", () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), "dedupe-"));
    const shared = 'module.exports=[1,e=>{"use strict";e.s(["a",0,1])}];\n';
    const map = (name: string) => `\n//# sourceMappingURL=${name}.map`;
    write("server/chunks/_0aaa._.js", shared + map("_0aaa._.js"));
    write("server/chunks/_1bbb._.js", shared + map("_1bbb._.js")); // the same code: only the map comment differs
    write("server/chunks/_2ccc._.js", 'module.exports=[2,e=>{"use strict"}];\n');
    write("server/chunks/_4eee._.js", `${shared}// another comment`); // other text: kept apart
    write("server/chunks/ssr/_3ddd._.js", shared); // another folder: kept apart
    const entry = (chunk: string) =>
      `var R=require("../../chunks/[turbopack]_runtime.js")("x")\nR.c("server/chunks/${chunk}")\nR.c("server/chunks/_2ccc._.js")\nR.c("server/chunks/ssr/_3ddd._.js")\n`;
    write("server/app/a/route.js", entry("_0aaa._.js"));
    write("server/app/b/route.js", entry("_1bbb._.js"));
    write(
      "server/app/b/route.js.nft.json",
      JSON.stringify({ files: ["../../chunks/_1bbb._.js", "../../x_1bbb._.js"] }),
    );

    const r = dedupeServerChunks(dist);

    expect(r).toEqual({ copies: 1, bytes: (shared + map("_1bbb._.js")).length, rewritten: 2 });
    expect(read("server/app/a/route.js")).toBe(entry("_0aaa._.js"));
    expect(read("server/app/b/route.js")).toBe(entry("_0aaa._.js"));
    // Whole names only: "x_1bbb._.js" is another file.
    expect(JSON.parse(read("server/app/b/route.js.nft.json"))).toEqual({
      files: ["../../chunks/_0aaa._.js", "../../x_1bbb._.js"],
    });
    // Nothing is deleted; running it again finds the copies but nothing left to point elsewhere.
    expect(fs.existsSync(path.join(dist, "server/chunks/_1bbb._.js"))).toBe(true);
    expect(dedupeServerChunks(dist).rewritten).toBe(0);
  });

  it("does nothing without a build", () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), "dedupe-"));
    expect(dedupeServerChunks(dist)).toEqual({ copies: 0, bytes: 0, rewritten: 0 });
  });
});
