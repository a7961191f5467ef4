#!/usr/bin/env node
// After `next build`: Turbopack writes the server chunks shared by several routes once per route,
// the same code under different names, differing only in their source map comment (vercel/next.js #89192: "the heuristics for shared
// chunks … don't always" merge them). The server's one Turbopack runtime remembers loaded chunks by
// path, so every route the console serves loaded its own copy: source, parse and closures again for
// code whose module factories the runtime had already installed (the first copy wins, by module id).
// This points every reference to a copy at one file with the same code in the same folder, so each
// chunk is read once however many routes use it. Same code, same module ids: what runs is unchanged.
// docs/performance.md says what it saves.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Every file under `dir`, recursively. */
function files(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

/** A chunk's code: its text without the trailing source map comment, which names the file itself. */
function code(file) {
  return fs.readFileSync(file, "utf8").replace(/\n\/\/# sourceMappingURL=[^\n]*\s*$/, "");
}

/**
 * Rewrites the references of `<distDir>/server` so identical chunks are one.
 * Returns what it did: how many copies, their bytes, and how many files were rewritten.
 */
export function dedupeServerChunks(distDir) {
  const server = path.join(distDir, "server");
  const chunks = path.join(server, "chunks");
  if (!fs.existsSync(chunks)) return { copies: 0, bytes: 0, rewritten: 0 };
  // Same folder and same code: a reference by any path form (absolute from the dist folder,
  // relative in a trace file) stays right when only the file name changes.
  const groups = new Map();
  for (const f of files(chunks)) {
    if (!f.endsWith(".js")) continue;
    const key = `${path.dirname(f)}\0${createHash("sha256").update(code(f)).digest("hex")}`;
    const group = groups.get(key) ?? [];
    group.push(f);
    groups.set(key, group);
  }
  /** copy's file name → the kept file's name */
  const rename = new Map();
  let bytes = 0;
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.sort();
    const kept = path.basename(group[0]);
    for (const copy of group.slice(1)) {
      const name = path.basename(copy);
      // A name that is not unique across folders could be rewritten where it means another file.
      if (rename.has(name)) throw new Error(`dedupe-server-chunks: two chunks named ${name}`);
      rename.set(name, kept);
      bytes += fs.statSync(copy).size;
    }
  }
  if (rename.size === 0) return { copies: 0, bytes: 0, rewritten: 0 };
  const escaped = [...rename.keys()]
    .sort((a, b) => b.length - a.length)
    .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  // Only whole file names: a name right after a path separator or a quote, ending the reference.
  const pattern = new RegExp(`(?<=[/"'])(${escaped.join("|")})(?=["'])`, "g");
  let rewritten = 0;
  for (const f of files(server)) {
    if (!f.endsWith(".js") && !f.endsWith(".json")) continue;
    const text = fs.readFileSync(f, "utf8");
    pattern.lastIndex = 0;
    if (!pattern.test(text)) continue;
    fs.writeFileSync(
      f,
      text.replace(pattern, (name) => rename.get(name)),
    );
    rewritten++;
  }
  return { copies: rename.size, bytes, rewritten };
}
