#!/usr/bin/env node
// Keeps package-lock.json installable with `npm ci` on every platform, and as verifiable as the
// registry allows (docs/security.md, "The lock file").
//
// npm writes a lock entry for another platform's optional binary package (`opencode-darwin-arm64`,
// `@next/swc-win32-x64-msvc`, …) only when the registry it talks to serves that package's
// metadata. A registry mirror that holds just this machine's platform leaves those entries out, and
// `npm ci` then refuses the lock everywhere ("Missing: … from lock file"). `complete` adds the
// missing entries, with `os`/`cpu`/`libc` read from the package name, so that `npm ci` skips them on
// other platforms and fetches them by name and version where they apply — and gives every entry
// without an integrity hash the one the registry serves for its exact version.
//
// Entries stay without a hash only when they must: a package bundled inside another (its tarball's
// hash covers it), a link, or another platform's optional binary that the registry cannot serve
// (pinned by exact version, listed in docs/security.md with how to verify it). `check` fails on any
// other unhashed entry — one the registry can serve is fixed by `complete`.
//
//   node scripts/lockfile.mjs check      exit 1 and list what is missing or unhashed
//   node scripts/lockfile.mjs complete   add the missing entries and the hashes the registry serves
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const OS = {
  darwin: "darwin",
  linux: "linux",
  windows: "win32",
  win32: "win32",
  freebsd: "freebsd",
  android: "android",
};
const CPU = ["arm64", "x64", "ia32", "arm", "wasm32"];
const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** The platform a binary package is for, from its name (`opencode-linux-arm64-musl` → linux/arm64/musl). */
export function platformOf(name) {
  const words = name.replace(/^@[^/]+\//, "").split(/[-_]/);
  const os = words.map((w) => OS[w]).find(Boolean);
  const cpu = words.find((w) => CPU.includes(w)) ?? (words.includes("arm") ? "arm" : undefined);
  if (!os || !cpu) return undefined;
  return {
    os,
    cpu,
    libc: words.includes("musl") ? "musl" : os === "linux" && words.includes("gnu") ? "glibc" : undefined,
  };
}

/** Optional dependencies declared by locked packages that have no entry of their own. */
export function missingOptional(lock) {
  const packages = lock.packages ?? {};
  const missing = [];
  for (const [key, entry] of Object.entries(packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const nested = `${key ? `${key}/` : ""}node_modules/${name}`;
      if (packages[nested] || packages[`node_modules/${name}`]) continue;
      missing.push({ name, version, by: key || "(root)" });
    }
  }
  return missing;
}

/** The package name of a lock key (`node_modules/a/node_modules/@s/b` → `@s/b`). */
export function nameOf(key) {
  const i = key.lastIndexOf("node_modules/");
  return i < 0 ? key : key.slice(i + "node_modules/".length);
}

/** Entries that carry no integrity hash and are not exempt (the root, links, bundled packages). */
export function unhashed(lock) {
  const out = [];
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    if (!key || entry.link || entry.inBundle || entry.integrity) continue;
    out.push({ key, name: nameOf(key), version: entry.version ?? "", entry });
  }
  return out;
}

/** Another platform's optional binary, pinned to an exact version: the only entry allowed no hash, when the registry cannot serve it. */
export function isPinnedPlatformBinary(name, entry) {
  return (
    entry.optional === true &&
    platformOf(name) !== undefined &&
    EXACT.test(entry.version ?? "") &&
    Array.isArray(entry.os)
  );
}

/**
 * The integrity the registry serves for `name@version` (`npm view`, so npm's own registry, proxy and
 * auth settings apply), or undefined when it serves no such version. Throws when it cannot tell.
 */
export function registryIntegrity(name, version) {
  return new Promise((resolve, reject) => {
    execFile("npm", ["view", `${name}@${version}`, "dist.integrity"], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout.trim() || undefined);
      if (/E404|404 Not Found|is not in this registry|No match found/.test(`${stderr}${stdout}`))
        return resolve(undefined);
      reject(
        new Error(
          `npm view ${name}@${version} failed: ${String(stderr || err.message)
            .trim()
            .split("\n")
            .slice(-3)
            .join(" ")}`,
        ),
      );
    });
  });
}

async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

/**
 * Adds the missing optional entries, then the integrity hash of every unhashed entry the registry
 * serves (`lookup`, default `registryIntegrity`). Returns what was added and what stays unhashed.
 */
export async function completeLock(lock, lookup = registryIntegrity) {
  const added = [];
  for (const { name, version } of missingOptional(lock)) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    const platform = platformOf(name);
    if (!platform || !EXACT.test(version)) continue;
    lock.packages[key] = {
      version,
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added.push(`${name}@${version}`);
  }
  const hashed = [];
  const unservable = [];
  const todo = unhashed(lock);
  const found = await mapLimit(todo, 4, (u) => lookup(u.name, u.version));
  todo.forEach((u, i) => {
    const integrity = found[i];
    if (integrity) {
      u.entry.integrity = integrity;
      hashed.push(`${u.name}@${u.version}`);
    } else unservable.push(`${u.name}@${u.version}`);
  });
  const [root, ...rest] = Object.entries(lock.packages);
  lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  return { added, hashed, unservable };
}

/**
 * What is wrong with the lock: missing optional entries, and unhashed entries other than pinned
 * platform binaries the registry cannot serve (`lookup` is asked only about those).
 */
export async function checkLock(lock, lookup = registryIntegrity) {
  const problems = missingOptional(lock).map(
    (m) =>
      `missing ${m.name}@${m.version} (optional dependency of ${m.by}): run \`node scripts/lockfile.mjs complete\``,
  );
  const pinned = [];
  const candidates = [];
  for (const u of unhashed(lock)) {
    if (isPinnedPlatformBinary(u.name, u.entry)) candidates.push(u);
    else
      problems.push(
        `no integrity hash for ${u.key}${u.version ? `@${u.version}` : ""}, which is not a pinned platform binary`,
      );
  }
  const served = await mapLimit(candidates, 4, async (u) => {
    try {
      return { integrity: await lookup(u.name, u.version) };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  });
  candidates.forEach((u, i) => {
    const r = served[i];
    if (r.error) problems.push(`cannot tell whether the registry serves ${u.name}@${u.version}: ${r.error}`);
    else if (r.integrity)
      problems.push(
        `no integrity hash for ${u.name}@${u.version}, which the registry serves: run \`node scripts/lockfile.mjs complete\``,
      );
    else pinned.push(`${u.name}@${u.version}`);
  });
  return { problems, pinned };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const file = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "package-lock.json");
  const lock = JSON.parse(fs.readFileSync(file, "utf8"));
  if (process.argv[2] === "complete") {
    const { added, hashed, unservable } = await completeLock(lock);
    fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
    console.log(added.length ? `added ${added.join(", ")}` : "no entry missing");
    console.log(hashed.length ? `hashed ${hashed.join(", ")}` : "no hash to add");
    if (unservable.length) console.log(`not served by this registry, pinned by version only: ${unservable.join(", ")}`);
  } else {
    const { problems, pinned } = await checkLock(lock);
    for (const p of problems) console.log(p);
    if (pinned.length)
      console.log(`pinned by version only (the registry serves no hash; see docs/security.md): ${pinned.join(", ")}`);
    process.exit(problems.length ? 1 : 0);
  }
}
