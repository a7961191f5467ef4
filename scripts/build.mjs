#!/usr/bin/env node
// `npm run build`: `next build`, then one file per identical server chunk (scripts/dedupe-server-chunks.mjs).
// `npm start` and the bench build through here too. Arguments are passed on to `next build`.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { dedupeServerChunks } from "./dedupe-server-chunks.mjs";

export function build(root, args = [], env = process.env) {
  const next = path.join(root, "node_modules", ".bin", "next");
  const r = spawnSync(next, ["build", ...args], { cwd: root, stdio: "inherit", env });
  if (r.status !== 0) return r.status ?? 1;
  const d = dedupeServerChunks(path.join(root, ".next"));
  if (d.copies)
    console.log(
      `[switchboard] server chunks: ${d.copies} copies of the same code now share one file each (${(d.bytes / 1048576).toFixed(1)} MB not loaded twice; ${d.rewritten} files rewritten)`,
    );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
  process.exit(build(root, process.argv.slice(2)));
}
