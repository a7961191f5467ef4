import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkLock,
  completeLock,
  isPinnedPlatformBinary,
  missingOptional,
  platformOf,
  unhashed,
  type IntegrityLookup,
  type Lock,
} from "./lockfile.mjs";

/** A registry that serves exactly these versions (no network in unit tests). */
const registry =
  (served: Record<string, string>): IntegrityLookup =>
  async (name, version) =>
    served[`${name}@${version}`];
/** The registry here: it serves every package of the lock except other platforms' opencode binaries. */
const hereRegistry: IntegrityLookup = async (name) =>
  /^opencode-(?:darwin|windows|linux-arm64|linux-x64-(?:baseline-)?musl)/.test(name) ? undefined : "sha512-served";

const committed = (): Lock =>
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "package-lock.json"), "utf8"));

describe("package-lock.json", () => {
  it("has an entry for every platform's optional binary package, so `npm ci` works on Linux, macOS and Windows", () => {
    expect(missingOptional(committed())).toEqual([]);
  });

  it("passes `check`: every entry hashed but the pinned platform binaries the registry cannot serve", async () => {
    const lock = committed();
    const { problems, pinned } = await checkLock(lock, hereRegistry);
    expect(problems).toEqual([]);
    expect(pinned.every((p) => /^opencode-[a-z0-9-]+@1\.18\.33$/.test(p))).toBe(true);
    for (const u of unhashed(lock)) expect(isPinnedPlatformBinary(u.name, u.entry), u.key).toBe(true);
  });
});

describe("lockfile check", () => {
  const lock = (): Lock => ({
    packages: {
      "": { name: "x" },
      "node_modules/tool": {
        version: "1.0.0",
        integrity: "sha512-tool",
        optionalDependencies: { "tool-linux-x64": "1.0.0", "tool-darwin-arm64": "1.0.0" },
      },
      "node_modules/tool-linux-x64": {
        version: "1.0.0",
        os: ["linux"],
        cpu: ["x64"],
        optional: true,
        integrity: "sha512-keep",
      },
      "node_modules/tool-darwin-arm64": { version: "1.0.0", os: ["darwin"], cpu: ["arm64"], optional: true },
      "node_modules/tool/node_modules/bundled": { version: "2.0.0", inBundle: true },
      "node_modules/linked": { link: true },
    },
  });

  it("fails on a hashless entry that the registry can serve", async () => {
    const { problems } = await checkLock(lock(), registry({ "tool-darwin-arm64@1.0.0": "sha512-darwin" }));
    expect(problems).toEqual([
      "no integrity hash for tool-darwin-arm64@1.0.0, which the registry serves: run `node scripts/lockfile.mjs complete`",
    ]);
  });

  it("lets a pinned platform binary the registry cannot serve pass, and nothing else", async () => {
    expect(await checkLock(lock(), registry({}))).toEqual({ problems: [], pinned: ["tool-darwin-arm64@1.0.0"] });
    const l = lock();
    l.packages["node_modules/plain"] = { version: "3.0.0" };
    l.packages["node_modules/tool-darwin-x64"] = { version: "^1.0.0", os: ["darwin"], cpu: ["x64"], optional: true };
    const { problems } = await checkLock(l, registry({}));
    expect(problems).toEqual([
      "no integrity hash for node_modules/plain@3.0.0, which is not a pinned platform binary",
      "no integrity hash for node_modules/tool-darwin-x64@^1.0.0, which is not a pinned platform binary",
    ]);
  });

  it("fails when it cannot tell whether the registry serves one", async () => {
    const { problems } = await checkLock(lock(), async () => {
      throw new Error("network down");
    });
    expect(problems).toEqual(["cannot tell whether the registry serves tool-darwin-arm64@1.0.0: network down"]);
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

  it("adds the missing entries with the hash the registry serves, and leaves present ones alone", async () => {
    const lock: Lock = {
      packages: {
        "": { name: "x" },
        "node_modules/tool": {
          version: "1.0.0",
          optionalDependencies: { "tool-linux-x64": "1.0.0", "tool-darwin-arm64": "1.0.0", "tool-win32-x64": "1.0.0" },
        },
        "node_modules/tool-linux-x64": {
          version: "1.0.0",
          os: ["linux"],
          cpu: ["x64"],
          optional: true,
          integrity: "sha512-keep",
        },
      },
    };
    const r = await completeLock(
      lock,
      registry({ "tool@1.0.0": "sha512-tool", "tool-darwin-arm64@1.0.0": "sha512-darwin" }),
    );
    expect(r).toEqual({
      added: ["tool-darwin-arm64@1.0.0", "tool-win32-x64@1.0.0"],
      hashed: ["tool@1.0.0", "tool-darwin-arm64@1.0.0"],
      unservable: ["tool-win32-x64@1.0.0"],
    });
    expect(lock.packages["node_modules/tool-darwin-arm64"]).toEqual({
      version: "1.0.0",
      cpu: ["arm64"],
      optional: true,
      os: ["darwin"],
      integrity: "sha512-darwin",
    });
    expect(lock.packages["node_modules/tool-win32-x64"]).toEqual({
      version: "1.0.0",
      cpu: ["x64"],
      optional: true,
      os: ["win32"],
    });
    expect(lock.packages["node_modules/tool-linux-x64"]?.integrity).toBe("sha512-keep");
    expect(missingOptional(lock)).toEqual([]);
    expect(Object.keys(lock.packages)[0]).toBe("");
    expect((await checkLock(lock, registry({}))).problems).toEqual([]);
  });
});
