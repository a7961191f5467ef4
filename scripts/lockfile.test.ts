import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { completeLock, missingOptional, platformOf, type Lock } from "./lockfile.mjs";

describe("package-lock.json", () => {
  it("has an entry for every platform's optional binary package, so `npm ci` works on Linux, macOS and Windows", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "package-lock.json"), "utf8"));
    expect(missingOptional(lock)).toEqual([]);
  });
});

describe("lockfile completion", () => {
  it("reads the platform from a binary package's name", () => {
    expect(platformOf("opencode-darwin-arm64")).toEqual({ os: "darwin", cpu: "arm64", libc: undefined });
    expect(platformOf("opencode-linux-x64-baseline-musl")).toEqual({ os: "linux", cpu: "x64", libc: "musl" });
    expect(platformOf("opencode-windows-x64")).toEqual({ os: "win32", cpu: "x64", libc: undefined });
    expect(platformOf("@next/swc-linux-arm64-gnu")).toEqual({ os: "linux", cpu: "arm64", libc: "glibc" });
    expect(platformOf("react")).toBeUndefined();
  });

  it("adds the missing entries and leaves present ones alone", () => {
    const lock: Lock = {
      packages: {
        "": { name: "x" },
        "node_modules/tool": { version: "1.0.0", optionalDependencies: { "tool-linux-x64": "1.0.0", "tool-darwin-arm64": "1.0.0" } },
        "node_modules/tool-linux-x64": { version: "1.0.0", os: ["linux"], cpu: ["x64"], optional: true, integrity: "sha512-keep" },
      },
    };
    expect(completeLock(lock)).toEqual(["tool-darwin-arm64@1.0.0"]);
    expect(lock.packages["node_modules/tool-darwin-arm64"]).toEqual({ version: "1.0.0", cpu: ["arm64"], optional: true, os: ["darwin"] });
    expect(lock.packages["node_modules/tool-linux-x64"]?.integrity).toBe("sha512-keep");
    expect(missingOptional(lock)).toEqual([]);
    expect(Object.keys(lock.packages)[0]).toBe("");
  });
});
