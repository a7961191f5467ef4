#!/usr/bin/env node
// `npm start`: builds the console when there is no build or when what the last build was made from
// changed (scripts/build-fingerprint.mjs), then serves it on 127.0.0.1 (HOST/PORT override).
import { spawn } from "node:child_process";
import path from "node:path";
import { build } from "./build.mjs";
import { buildFingerprint, rebuildReason, saveFingerprint } from "./build-fingerprint.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const next = path.join(root, "node_modules", ".bin", "next");
const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT || "3000";

const fingerprint = buildFingerprint(root);
const reason = process.env.SWITCHBOARD_REBUILD === "1" ? "SWITCHBOARD_REBUILD=1" : rebuildReason(root, fingerprint);
if (reason) {
  console.log(`[switchboard] building the console (${reason})…`);
  const status = build(root);
  if (status !== 0) process.exit(status);
  saveFingerprint(root, fingerprint);
}

// A host other than loopback gets a loud warning from the server itself at start-up (it reads the
// `-H` below from its command line: server/auth/announce.ts), so a bare `next start -H 0.0.0.0`
// gets it too; it is not printed here as well.

// The embedded OpenCode works in the directory `npm start` was run from (npm runs scripts from the
// package root and keeps the caller's directory in INIT_CWD), unless SWITCHBOARD_WORKSPACE says.
const workspace = path.resolve(process.env.SWITCHBOARD_WORKSPACE || process.env.INIT_CWD || process.cwd());
console.log(`[switchboard] workspace: ${workspace}`);

const child = spawn(next, ["start", "-H", host, "-p", port], {
  cwd: root,
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, SWITCHBOARD_WORKSPACE: workspace },
});
let announced = false;
child.stdout.on("data", (d) => {
  process.stdout.write(d);
  if (!announced && /Ready|started server|Local:/i.test(String(d))) {
    announced = true;
    const shown = host === "0.0.0.0" ? "127.0.0.1" : host;
    console.log(
      `\n  Switchboard is running at http://${shown}:${port} — log in with the token or the link printed below.\n`,
    );
  }
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
