#!/usr/bin/env node
/**
 * The stress pass (docs/testing.md): runs a test command several times in a row, optionally with
 * busy-loop processes beside it (one per `--hog`), and in a shuffled order per run for Vitest.
 *
 *   node scripts/stress.mjs --runs 10 [--hog 1] [--shuffle] -- npx vitest run server/backends/conformance -t "killed mid-turn"
 *
 * Prints one line per run and a closing `N passed, N failed` line; exits non-zero if any run failed.
 * Each run's output is kept in `stress-results/run-<i>.log` (outside `test-results/`, which Playwright
 * empties when it starts).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
if (sep < 0 || sep === argv.length - 1) {
  console.error("usage: node scripts/stress.mjs [--runs N] [--hog N] [--shuffle] -- <command …>");
  process.exit(2);
}
const opts = argv.slice(0, sep);
const command = argv.slice(sep + 1);
const flag = (name, fallback) => {
  const i = opts.indexOf(name);
  return i >= 0 ? Number(opts[i + 1]) : fallback;
};
const runs = flag("--runs", 3);
const hogs = flag("--hog", 0);
const shuffle = opts.includes("--shuffle");
const outDir = path.resolve("stress-results");
fs.mkdirSync(outDir, { recursive: true });

/** A busy loop in its own process: it takes a core for as long as the pass runs. */
const hogProcs = Array.from({ length: hogs }, () => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
const stopHogs = () => {
  for (const p of hogProcs) p.kill("SIGKILL");
};
process.on("exit", stopHogs);
process.on("SIGINT", () => process.exit(130));

let passed = 0;
let failed = 0;
for (let i = 1; i <= runs; i++) {
  const args = [...command];
  if (shuffle) args.push("--sequence.shuffle", `--sequence.seed=${i * 7919}`);
  const log = path.join(outDir, `run-${i}.log`);
  const started = Date.now();
  const code = await new Promise((resolve) => {
    const out = fs.openSync(log, "w");
    const child = spawn(args[0], args.slice(1), {
      stdio: ["ignore", out, out],
      env: { ...process.env, CI: process.env.CI ?? "true" },
    });
    child.on("exit", (c) => {
      fs.closeSync(out);
      resolve(c ?? 1);
    });
  });
  const secs = ((Date.now() - started) / 1000).toFixed(0);
  if (code === 0) passed++;
  else failed++;
  console.log(
    `[stress] run ${i}/${runs}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${secs} s${hogs ? ` beside ${hogs} busy loop(s)` : ""} — ${path.relative(process.cwd(), log)}`,
  );
}
stopHogs();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
