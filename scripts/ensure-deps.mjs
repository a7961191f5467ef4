#!/usr/bin/env node
// Some npm setups skip dependencies' install scripts (allowScripts). The console needs two of them:
// better-sqlite3's native build and opencode-ai's postinstall, which links the platform binary.
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const require = createRequire(path.join(root, "package.json"));

function works(fn) {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

if (!works(() => new (require("better-sqlite3"))(":memory:").close())) {
  console.log("[switchboard] building better-sqlite3…");
  spawnSync("npm", ["rebuild", "better-sqlite3"], { cwd: root, stdio: "inherit" });
}
const opencode = path.join(root, "node_modules", ".bin", "opencode");
if (!works(() => execFileSync(opencode, ["--version"], { stdio: "pipe", timeout: 20_000 }))) {
  console.log("[switchboard] linking the opencode binary…");
  spawnSync(process.execPath, ["postinstall.mjs"], {
    cwd: path.join(root, "node_modules", "opencode-ai"),
    stdio: "inherit",
  });
}
