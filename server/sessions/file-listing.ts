import "server-only";
import { spawn } from "node:child_process";
import { ApiError } from "../errors";

/**
 * A folder's files for `@` mentions (docs/api.md, "File mentions"): `rg --files`, bounded and cached
 * briefly, and ranked against what is typed. Used by the session's `…/files` (server/sessions/files.ts)
 * and the compare start form (server/compare/).
 */

/** The most paths read from one `rg --files` listing (the rest of a huge tree is not offered). */
export const MAX_LISTED = 50_000;
/** How long `rg --files` may run before it is stopped (what it listed so far is kept). */
export const LIST_TIMEOUT_MS = 5_000;
/** How long a directory's listing is reused: typing `@src/a` asks once, not at every key. */
export const LIST_TTL_MS = 10_000;
const CACHED_DIRS = 20;

/* ------------------------------------------------------------------ rg --files */

const cache = new Map<string, { at: number; files: Promise<string[]> }>();

/** The files of `dir` as `rg --files` lists them (ignore files respected, symlinks not followed), cached briefly. */
export function listFiles(dir: string, now = Date.now()): Promise<string[]> {
  const hit = cache.get(dir);
  if (hit && now - hit.at < LIST_TTL_MS) return hit.files;
  const files = runRg(dir);
  cache.delete(dir);
  cache.set(dir, { at: now, files });
  if (cache.size > CACHED_DIRS) cache.delete(cache.keys().next().value!);
  files.catch(() => cache.delete(dir));
  return files;
}

/** Forgets every cached listing (tests). */
export function clearFileListings(): void {
  cache.clear();
}

/**
 * Runs `rg --files` in `dir` (an argument array, no shell; `--no-config` so that no `RIPGREP_CONFIG_PATH`
 * adds flags) and reads at most `max` lines within `timeoutMs`; then it is stopped and what it listed is kept.
 */
export function runRg(
  dir: string,
  opts: { max?: number; timeoutMs?: number; command?: string } = {},
): Promise<string[]> {
  const max = opts.max ?? MAX_LISTED;
  return new Promise((resolve, reject) => {
    const files: string[] = [];
    let rest = "";
    let done = false;
    const child = spawn(
      // The workspace directory is the user's, not the console's: nothing here is traced into the build.
      /*turbopackIgnore: true*/
      opts.command ?? "rg",
      ["--files", "--no-config", "--no-follow", "--no-messages", "--color=never"],
      {
        cwd: dir,
        stdio: ["ignore", "pipe", "ignore"],
        shell: false,
      },
    );
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (child.exitCode === null) child.kill("SIGKILL");
      resolve(files);
    };
    const timer = setTimeout(finish, opts.timeoutMs ?? LIST_TIMEOUT_MS);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (done) return;
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        if (!line) continue;
        files.push(line.startsWith("./") ? line.slice(2) : line);
        if (files.length >= max) return finish();
      }
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(
        err.code === "ENOENT"
          ? ApiError.conflict("ripgrep (rg) is not installed where the console runs: it lists the workspace files")
          : ApiError.upstream(`Could not list the files: ${err.message}`),
      );
    });
    child.on("close", () => {
      if (rest && files.length < max) files.push(rest);
      rest = "";
      finish();
    });
  });
}

/* ------------------------------------------------------------------ ranking */

/**
 * The paths matching `query`, best first: the file name starting with it, then containing it, then
 * the path containing it, then its characters in order (a fuzzy match: `cmpsr` finds `composer.tsx`).
 * Ties go to the shorter path. Case-insensitive; an empty query lists the shallowest paths.
 */
export function rankFiles(files: readonly string[], query: string, limit: number): string[] {
  const q = query.trim().toLowerCase();
  const scored: { p: string; s: number }[] = [];
  for (const p of files) {
    const s = score(p, q);
    if (s !== undefined) scored.push({ p, s });
  }
  scored.sort(
    (a, b) => a.s - b.s || depth(a.p) - depth(b.p) || a.p.length - b.p.length || (a.p < b.p ? -1 : a.p > b.p ? 1 : 0),
  );
  return scored.slice(0, limit).map((x) => x.p);
}

const depth = (p: string) => p.split("/").length;

function score(p: string, q: string): number | undefined {
  if (!q) return 0;
  const lower = p.toLowerCase();
  const base = lower.slice(lower.lastIndexOf("/") + 1);
  if (base.startsWith(q)) return 0;
  if (base.includes(q)) return 1;
  if (lower.startsWith(q)) return 2;
  if (lower.includes(q)) return 3;
  let i = 0;
  for (const c of lower) if (c === q[i]) i++;
  return i === q.length ? 4 : undefined;
}
