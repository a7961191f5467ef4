#!/usr/bin/env node
// `npm test`: every check, the independent ones side by side (docs/testing.md, "Order").
//
//   lint
//   build ──┬── end-to-end (Playwright)
//           └── type check (tsc, over the route types the build wrote)
//   unit (Vitest)
//
// The unit tests wait on real agents, servers and git more than they compute, so they run beside the
// rest instead of before it. The build skips its own type check (SWITCHBOARD_TYPES_CHECKED=1) and the
// type check runs once, after it, beside the end-to-end tests. Output of the checks that run beside
// Playwright is held and printed whole when each ends, so it does not interleave with Playwright's
// list. A failure anywhere fails the run, once every started check has ended.
import { spawn } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const children = new Set();
const results = [];

/**
 * Runs a command; `hold` keeps its output until it ends; `nice` lowers its CPU priority (and its
 * children's), so the critical path (build, then the end-to-end tests) gets the CPU first and the
 * checks beside it use what is left. Resolves to whether it passed.
 */
function run(name, command, args, { env = {}, hold = false, nice = 0 } = {}) {
  const started = Date.now();
  if (nice && process.platform !== "win32") [command, args] = ["nice", ["-n", String(nice), command, ...args]];
  return new Promise((resolve) => {
    const child = spawn(command, args, {
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
    const done = (ok, why) => {
      children.delete(child);
      const seconds = Math.round((Date.now() - started) / 1000);
      results.push({ name, ok, seconds });
      if (hold) {
        process.stdout.write(`\n[test] ── ${name} (ran beside the others) ──\n`);
        process.stdout.write(Buffer.concat(held));
        process.stdout.write(`[test] ── end of ${name} ──\n\n`);
      }
      console.log(`[test] ${name}: ${ok ? "passed" : `failed (${why})`} in ${seconds} s`);
      resolve(ok);
    };
    child.on("error", (err) => done(false, err.message));
    child.on("close", (code, signal) => done(code === 0, signal ?? `exit ${code}`));
  });
}

const npm = (script) => ["npm", ["run", "--silent", script]];
const bin = (name) => `${root}node_modules/.bin/${name}`;

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
// The unit tests wait on agents and servers more than they compute, and end long before the
// end-to-end tests: they run beside the build and Playwright at a lower priority (docs/testing.md).
const unit = run("unit tests", ...npm("test:unit"), { hold: true, nice: 5 });
const lint = run("lint", ...npm("lint"), { hold: true, nice: 5 });
let rest;
if (await run("build", ...npm("build"), { env: { SWITCHBOARD_TYPES_CHECKED: "1" } })) {
  rest = Promise.all([
    run("type check", bin("tsc"), ["--noEmit"], { hold: true, nice: 5 }),
    run("end-to-end tests", ...npm("test:e2e")),
  ]);
} else {
  // No build, so no end-to-end tests; the type check still says what it finds (with its own typegen).
  rest = Promise.all([run("type check", ...npm("typecheck"))]);
}
const ok = [await unit, await lint, ...(await rest)].every(Boolean);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(
  `[test] ${results.map((r) => `${r.name} ${r.ok ? "✓" : "✗"} ${r.seconds} s`).join(" · ")} — ${minutes} min`,
);
process.exit(ok ? 0 : 1);
