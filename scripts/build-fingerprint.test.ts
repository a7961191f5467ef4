import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildFingerprint, buildInputs, rebuildReason, saveFingerprint } from "./build-fingerprint.mjs";

let root: string;
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "sb-fingerprint-"));
  write("app/page.tsx", "export default function P() { return null; }\n");
  write("lib/model.ts", "export const a = 1;\n");
  write("lib/model.test.ts", "test\n");
  write("package-lock.json", '{"lockfileVersion":3}\n');
  write("next.config.mjs", "export default {};\n");
  write("node_modules/x/index.js", "x\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A finished build that npm start made (BUILD_ID plus the stored hash). */
function built() {
  write(".next/BUILD_ID", "abc\n");
  saveFingerprint(root, buildFingerprint(root));
}

describe("build fingerprint", () => {
  it("covers sources, the lockfile and the Next config, not tests or node_modules", () => {
    expect(buildInputs(root)).toEqual(["app/page.tsx", "lib/model.ts", "next.config.mjs", "package-lock.json"]);
  });

  it("asks for a build when there is none, or one not made by npm start", () => {
    expect(rebuildReason(root)).toBe("no build yet");
    write(".next/BUILD_ID", "abc\n");
    expect(rebuildReason(root)).toMatch(/not made by npm start/);
  });

  it("serves the build while nothing it was made from changed (tests may change)", () => {
    built();
    expect(rebuildReason(root)).toBeUndefined();
    write("lib/model.test.ts", "another test\n");
    expect(rebuildReason(root)).toBeUndefined();
  });

  it("asks for a build when the build was remade by hand since (another BUILD_ID)", () => {
    built();
    write(".next/BUILD_ID", "def\n");
    expect(rebuildReason(root)).toMatch(/not made by npm start/);
  });

  it.each([
    ["a source file changes", () => write("lib/model.ts", "export const a = 2;\n")],
    ["a file is added", () => write("components/new.tsx", "export {};\n")],
    ["a file is renamed", () => fs.renameSync(path.join(root, "lib/model.ts"), path.join(root, "lib/model2.ts"))],
    ["the dependencies change", () => write("package-lock.json", '{"lockfileVersion":3,"packages":{}}\n')],
    ["the Next config changes", () => write("next.config.mjs", "export default { poweredByHeader: false };\n")],
  ])("rebuilds when %s", (_what, change) => {
    built();
    change();
    expect(rebuildReason(root)).toMatch(/changed since the last build/);
  });
});
