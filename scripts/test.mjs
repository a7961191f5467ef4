#!/usr/bin/env node
// `npm test`: every check, the independent ones side by side (docs/testing.md, "Order").
//
//   type check ─┐
//   lint ───────┴─ build ── end-to-end (Playwright)
//   unit (Vitest) ──────────────────────────────┘
//
// The unit tests wait on real agents, servers and git more than they compute, so they run beside the
// type check, build and end-to-end tests instead of before them. Their output is held and printed
// whole when they end, so that it does not interleave with Playwright's list. The type check and lint
// must pass before the build; a failure anywhere fails the run, after every started check has ended.
import { spawn } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const children = new Set();
const results = [];

/** Runs `npm run <script>`; `hold` keeps its output until it ends. Resolves to whether it passed. */
function run(name, script, { env = {}, hold = false } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: hold ? ["ignore", "pipe", "pipe"] : "inherit",
      detached: true,
    });
    children.add(child);
    const held = [];
    if (hold) {
      child.stdout.on("data", (b) => held.push(b));
      child.stderr.on("data", (b) => held.push(b));
    }
    child.on("close", (code, signal) => {
      children.delete(child);
      const seconds = Math.round((Date.now() - started) / 1000);
      const ok = code === 0;
      results.push({ name, ok, seconds });
      if (hold) {
        process.stdout.write(`\n[test] ── ${name} (ran beside the others) ──\n`);
        process.stdout.write(Buffer.concat(held));
        process.stdout.write(`[test] ── end of ${name} ──\n\n`);
      }
      console.log(`[test] ${name}: ${ok ? "passed" : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s`);
      resolve(ok);
    });
  });
}

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    for (const c of children) {
      try {
        process.kill(-c.pid, sig);
      } catch {}
    }
    process.exit(130);
  });
}

const started = Date.now();
const unit = run("unit tests", "test:unit", { hold: true });
const checked = await Promise.all([run("type check", "typecheck"), run("lint", "lint")]);
let rest = false;
if (checked.every(Boolean)) {
  // The build skips its own type check: the one above covered it.
  rest =
    (await run("build", "build", { env: { SWITCHBOARD_TYPES_CHECKED: "1" } })) &&
    (await run("end-to-end tests", "test:e2e"));
}
const unitOk = await unit;
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(
  `[test] ${results.map((r) => `${r.name} ${r.ok ? "✓" : "✗"} ${r.seconds} s`).join(" · ")} — ${minutes} min`,
);
process.exit(rest && unitOk ? 0 : 1);
