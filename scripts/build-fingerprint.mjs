// What a production build of the console is made from, as one hash: `npm start` (scripts/start.mjs)
// rebuilds when it differs from the hash stored beside the last build, so changed code,
// dependencies or configuration never serve an old build.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Directories whose files go into the build. */
export const SOURCE_DIRS = ["app", "components", "lib", "server", "public"];
/** Single files that shape the build: configuration, dependencies, the proxy and instrumentation hooks. */
export const SOURCE_FILES = [
  "package.json",
  "package-lock.json",
  "next.config.mjs",
  "next.config.js",
  "next.config.ts",
  "tsconfig.json",
  "postcss.config.mjs",
  "proxy.ts",
  "instrumentation.ts",
  "scripts/build.mjs",
  "scripts/dedupe-server-chunks.mjs",
];
/** Where the hash of the last successful build is kept (Next wipes .next on a build; this is written after). */
export const FINGERPRINT_FILE = path.join(".next", "switchboard-build-hash");

/** Tests, and anything not part of the app, do not count. */
const skipped = (name) => /\.test\.(ts|tsx|mjs|js)$/.test(name) || name === "node_modules" || name.startsWith(".");

function walk(root, rel, out) {
  let entries;
  try {
    entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (skipped(e.name)) continue;
    const p = path.posix.join(rel, e.name);
    if (e.isDirectory()) walk(root, p, out);
    else if (e.isFile()) out.push(p);
  }
}

/** The build's input files under `root`, as sorted `/`-separated relative paths. */
export function buildInputs(root) {
  const out = [];
  for (const d of SOURCE_DIRS) walk(root, d, out);
  for (const f of SOURCE_FILES) if (fs.existsSync(path.join(root, f))) out.push(f);
  return out.sort();
}

/** sha256 over every input's path and content (a renamed, added or removed file changes it too). */
export function buildFingerprint(root) {
  const h = createHash("sha256");
  for (const f of buildInputs(root)) {
    h.update(f);
    h.update("\0");
    h.update(fs.readFileSync(path.join(root, f)));
    h.update("\0");
  }
  return h.digest("hex");
}

const buildId = (root) => fs.readFileSync(path.join(root, ".next", "BUILD_ID"), "utf8").trim();

/** Why a build is needed (a sentence for the log), or undefined when the last build is current. */
export function rebuildReason(root, current = buildFingerprint(root)) {
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID"))) return "no build yet";
  let stored;
  try {
    stored = fs.readFileSync(path.join(root, FINGERPRINT_FILE), "utf8").trim().split(" ");
  } catch {
    stored = [];
  }
  // The hash belongs to one build: a build made since by hand (`next build`) has another BUILD_ID.
  if (stored[1] !== buildId(root)) return "the build was not made by npm start, so what it was made from is unknown";
  return stored[0] === current
    ? undefined
    : "the code, the dependencies or the configuration changed since the last build";
}

/** Records what the build now in .next was made from (after a successful build). */
export function saveFingerprint(root, fingerprint) {
  fs.writeFileSync(path.join(root, FINGERPRINT_FILE), `${fingerprint} ${buildId(root)}\n`);
}
