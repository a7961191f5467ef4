import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { locateCommand, packageVersionOf, projectBinDir, resolveCommand } from "./resolve-command";

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-resolve-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** An npm-style install: `<prefix>/lib/node_modules/<pkg>/bin/<name>` linked from `<prefix>/bin/<name>`. */
function npmInstall(prefix: string, pkg: string, name: string, version: string): string {
  const pkgDir = path.join(prefix, "lib", "node_modules", pkg);
  fs.mkdirSync(path.join(pkgDir, "bin"), { recursive: true });
  fs.writeFileSync(path.join(pkgDir, "package.json"), JSON.stringify({ name: pkg, version }));
  const bin = path.join(pkgDir, "bin", name);
  fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
  fs.mkdirSync(path.join(prefix, "bin"), { recursive: true });
  fs.symlinkSync(bin, path.join(prefix, "bin", name));
  return path.join(prefix, "bin");
}

describe("locateCommand", () => {
  it("takes the user's PATH before the console's own node_modules/.bin, even when npm put that first", () => {
    const user = npmInstall(path.join(root, "user"), "codex-acp", "sb-test-agent", "2.6.0");
    const found = locateCommand("sb-test-agent", { pathEnv: [projectBinDir(), user].join(path.delimiter) });
    expect(found).toEqual({ path: path.join(user, "sb-test-agent"), bundled: false });
    expect(packageVersionOf(found!.path)).toBe("2.6.0");
  });

  it("falls back to the console's copy, marked bundled, with its package version", () => {
    const bundled = npmInstall(path.join(root, "console"), "@scope/agent", "sb-bundled-agent", "0.16.0");
    const found = locateCommand("sb-bundled-agent", { pathEnv: "/nonexistent", extraDirs: [bundled] });
    expect(found).toEqual({ path: path.join(bundled, "sb-bundled-agent"), bundled: true });
    expect(packageVersionOf(found!.path)).toBe("0.16.0");
    // the console's real node_modules/.bin: a dependency's bin, found there when PATH lacks it
    expect(locateCommand("tsc", { pathEnv: projectBinDir() })).toMatchObject({ bundled: true });
  });

  it("resolves a path with a slash against cwd, and reports nothing for what does not exist", () => {
    const bin = npmInstall(path.join(root, "rel"), "x", "sb-rel-agent", "1.0.0");
    expect(resolveCommand("./bin/sb-rel-agent", { cwd: path.dirname(bin) })).toBe(path.join(bin, "sb-rel-agent"));
    expect(locateCommand("sb-no-such-agent-xyz", { pathEnv: bin, extraDirs: [] })).toBeUndefined();
    expect(packageVersionOf(path.join(root, "missing"))).toBeUndefined();
  });
});
