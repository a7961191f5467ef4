import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackendDefinition } from "@/lib/api";
import { BACKEND_KINDS, type BackendKind } from "@/lib/model";
import { isApiError } from "../errors";
import { confineBackendDirs, detectPresets, kindEntries, kindEntry } from "./kinds";

let base: string;
let ws: string;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-kinds-")));
  ws = path.join(base, "ws");
  fs.mkdirSync(path.join(ws, "sub", "deeper"), { recursive: true });
  fs.mkdirSync(path.join(base, "outside"));
  fs.symlinkSync(path.join(base, "outside"), path.join(ws, "escape"));
  fs.symlinkSync(path.join(ws, "sub"), path.join(ws, "alias"));
  fs.writeFileSync(path.join(ws, "file.txt"), "x");
  fs.mkdirSync(path.join(base, "ws-sibling"));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe("the kind table", () => {
  it("confines the directories of a backend sent by a browser: a stdio agent's cwd and an embedded OpenCode's directory", async () => {
    const acp = (cwd?: string): BackendDefinition => ({
      kind: "acp",
      label: "agent",
      config: { command: ["node", "-e", "0"], ...(cwd !== undefined ? { cwd } : {}) },
    });
    const opencode = (directory?: string): BackendDefinition => ({
      kind: "opencode",
      label: "oc",
      config: { ...(directory !== undefined ? { directory } : {}) },
    });
    const cwdOf = async (def: BackendDefinition): Promise<number | string | undefined> => {
      try {
        const out = await confineBackendDirs(def, [ws]);
        return out.kind === "opencode" ? out.config.directory : out.kind === "a2a" ? undefined : out.config.cwd;
      } catch (err) {
        if (isApiError(err)) return err.status;
        throw err;
      }
    };
    // Outside: by an absolute path, by "..", by a symlink, relative or not → 403.
    for (const dir of [
      "/",
      "/etc",
      path.join(ws, ".."),
      "..",
      path.join(ws, "escape"),
      "escape",
      `${ws}/escape/..`,
      path.join(base, "ws-sibling"),
    ]) {
      expect(await cwdOf(acp(dir)), `acp cwd ${dir}`).toBe(403);
      expect(await cwdOf(opencode(dir)), `opencode directory ${dir}`).toBe(403);
    }
    // Inside: the real path is what the backend gets.
    expect(await cwdOf(acp("sub"))).toBe(path.join(ws, "sub"));
    expect(await cwdOf(acp(path.join(ws, "alias", "deeper")))).toBe(path.join(ws, "sub", "deeper"));
    expect(await cwdOf(opencode(path.join(ws, "alias")))).toBe(path.join(ws, "sub"));
    // Missing inside, or a file → 400; absent or empty → the default (the workspace), unchanged.
    expect(await cwdOf(acp(path.join(ws, "missing")))).toBe(400);
    expect(await cwdOf(acp(path.join(ws, "file.txt")))).toBe(400);
    expect(await cwdOf(acp())).toBeUndefined();
    expect(await cwdOf(acp("  "))).toBeUndefined();
    expect(await cwdOf(opencode(""))).toBeUndefined();
    const a2a: BackendDefinition = { kind: "a2a", label: "remote", config: { url: "https://agent.example/a2a" } };
    expect(await confineBackendDirs(a2a, [ws])).toEqual(a2a);
    // The rest of the definition is kept as it was.
    const full: BackendDefinition = {
      kind: "acp",
      label: "agent",
      config: { command: ["agent", "--acp"], env: { A: "1" }, cwd: "sub" },
    };
    expect(await confineBackendDirs(full, [ws])).toEqual({
      ...full,
      config: { ...full.config, cwd: path.join(ws, "sub") },
    });
  });

  it("has an entry for every kind of the model, and answers 400 for another", () => {
    expect(
      kindEntries()
        .map((k) => k.kind)
        .sort(),
    ).toEqual([...BACKEND_KINDS].sort());
    expect(kindEntry("acp").form).toBe("command");
    let status: number | undefined;
    try {
      kindEntry("telnet" as BackendKind);
    } catch (err) {
      status = isApiError(err) ? err.status : undefined;
    }
    expect(status).toBe(400);
  });

  it("validates a config with the kind's schema before creating the adapter", () => {
    const ctx = {
      id: "x",
      label: "x",
      source: "store" as const,
      workspace: ws,
      store: undefined as never,
      sink: undefined as never,
    };
    expect(() => kindEntry("acp").create({ command: [] }, ctx)).toThrow(/Invalid acp backend config/);
  });

  it("offers every kind's presets, each marked available or not", () => {
    const presets = detectPresets();
    expect(presets.map((p) => p.id)).toEqual(expect.arrayContaining(["copilot", "opencode-acp", "zot"]));
    for (const p of presets) expect(p.available).toBe(p.path !== undefined);
    // the vendors' ACP agents are devDependencies: detected in node_modules/.bin
    for (const id of ["codex", "claude-code", "gemini"])
      expect(presets.find((p) => p.id === id)).toMatchObject({ kind: "acp", available: true });
  });

  it("runs what the user installed before the console's bundled copy, a renamed binary before its older name, with versions", () => {
    // Only the console's copies: today's Claude adapter, marked bundled, with its package's version.
    const withPath = (PATH: string, f: () => void) => {
      const before = process.env.PATH;
      process.env.PATH = PATH;
      try {
        f();
      } finally {
        process.env.PATH = before;
      }
    };
    withPath("/nonexistent", () => {
      const claude = detectPresets().find((p) => p.id === "claude-code")!;
      expect(claude).toMatchObject({
        command: ["claude-agent-acp"],
        available: true,
        bundled: true,
        version: "0.101.0",
      });
      expect(claude).not.toHaveProperty("alternatives");
    });
    // Today's adapters on the user's PATH (npm-style installs): those run, not the console's copies.
    const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "sb-presets-"));
    for (const [pkg, bin, version] of [
      ["@agentclientprotocol/claude-agent-acp", "claude-agent-acp", "0.101.0"],
      ["@agentclientprotocol/codex-acp", "codex-acp", "2.6.0"],
    ] as const) {
      const dir = path.join(prefix, "lib", "node_modules", pkg);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: pkg, version }));
      fs.writeFileSync(path.join(dir, "cli.js"), "#!/bin/sh\n", { mode: 0o755 });
      fs.mkdirSync(path.join(prefix, "bin"), { recursive: true });
      fs.symlinkSync(path.join(dir, "cli.js"), path.join(prefix, "bin", bin));
    }
    // npm start puts the console's node_modules/.bin first on PATH: it must not shadow the user's.
    withPath([path.join(process.cwd(), "node_modules", ".bin"), path.join(prefix, "bin")].join(path.delimiter), () => {
      const presets = detectPresets();
      expect(presets.find((p) => p.id === "claude-code")).toMatchObject({
        command: ["claude-agent-acp"],
        path: path.join(prefix, "bin", "claude-agent-acp"),
        version: "0.101.0",
      });
      const codex = presets.find((p) => p.id === "codex")!;
      expect(codex).toMatchObject({ path: path.join(prefix, "bin", "codex-acp"), version: "2.6.0" });
      expect(codex.bundled).toBeUndefined();
    });
    fs.rmSync(prefix, { recursive: true, force: true });
  });
});
