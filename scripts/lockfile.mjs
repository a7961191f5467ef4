#!/usr/bin/env node
// Keeps package-lock.json installable with `npm ci` on every platform.
//
// npm writes a lock entry for another platform's optional binary package (`opencode-darwin-arm64`,
// `@next/swc-win32-x64-msvc`, …) only when the registry it talks to serves that package's
// metadata. A registry mirror that holds just this machine's platform leaves those entries out, and
// `npm ci` then refuses the lock everywhere ("Missing: … from lock file"). `complete` adds the
// missing entries, with `os`/`cpu`/`libc` read from the package name, so that `npm ci` skips them on
// other platforms and fetches them by name and version where they apply.
//
//   node scripts/lockfile.mjs check      exit 1 and list what is missing
//   node scripts/lockfile.mjs complete   add the missing entries in place
import fs from "node:fs";
import path from "node:path";

const OS = { darwin: "darwin", linux: "linux", windows: "win32", win32: "win32", freebsd: "freebsd", android: "android" };
const CPU = ["arm64", "x64", "ia32", "arm", "wasm32"];

/** The platform a binary package is for, from its name (`opencode-linux-arm64-musl` → linux/arm64/musl). */
export function platformOf(name) {
  const words = name.replace(/^@[^/]+\//, "").split(/[-_]/);
  const os = words.map((w) => OS[w]).find(Boolean);
  const cpu = words.find((w) => CPU.includes(w)) ?? (words.includes("arm") ? "arm" : undefined);
  if (!os || !cpu) return undefined;
  return { os, cpu, libc: words.includes("musl") ? "musl" : os === "linux" && words.includes("gnu") ? "glibc" : undefined };
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

export function completeLock(lock) {
  const added = [];
  for (const { name, version } of missingOptional(lock)) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[key] = {
      version,
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added.push(`${name}@${version}`);
  }
  const [root, ...rest] = Object.entries(lock.packages);
  lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  return added;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const file = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "package-lock.json");
  const lock = JSON.parse(fs.readFileSync(file, "utf8"));
  if (process.argv[2] === "complete") {
    const added = completeLock(lock);
    fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
    console.log(added.length ? `added ${added.join(", ")}` : "nothing to add");
  } else {
    const missing = missingOptional(lock);
    for (const m of missing) console.log(`missing ${m.name}@${m.version} (optional dependency of ${m.by})`);
    process.exit(missing.length ? 1 : 0);
  }
}
