import "server-only";
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FileSearchQuery, FileSearchResult, PromptBody } from "@/lib/api";
import type { ConsoleApp } from "../app";
import { resolveWorkspaceDir } from "../auth/workspace";
import { isInside } from "../backends/shared/files";
import { ApiError } from "../errors";

type Deps = Pick<ConsoleApp, "backends" | "hub" | "config">;

/** The most paths read from one `rg --files` listing (the rest of a huge tree is not offered). */
export const MAX_LISTED = 50_000;
/** How long `rg --files` may run before it is stopped (what it listed so far is kept). */
export const LIST_TIMEOUT_MS = 5_000;
/** How long a directory's listing is reused: typing `@src/a` asks once, not at every key. */
export const LIST_TTL_MS = 10_000;
const CACHED_DIRS = 20;

/**
 * `GET …/files`: the session's files matching `q` (docs/api.md, "File mentions"), from the backend's
 * own file search where it has one, else from `rg --files` in the session's directory when that lies
 * within the workspace roots. 409 when the backend takes no mentions; 403 when the directory is outside.
 */
export async function findSessionFiles(
  app: Deps,
  backendId: string,
  sessionId: string,
  q: FileSearchQuery,
): Promise<FileSearchResult> {
  const adapter = app.backends.require(backendId);
  const info = adapter.info();
  const mentions = info.capabilities.mentions;
  if (!mentions) throw ApiError.conflict(`${info.label} cannot mention files`, { capability: "mentions" });
  if (mentions.search === "backend" && adapter.findFiles) {
    const items = await adapter.findFiles(sessionId, q.q, q.limit);
    return { items: items.filter(isRelativePath).slice(0, q.limit), source: "backend" };
  }
  const session = (await app.hub.open(backendId, sessionId)).snapshot().session;
  if (!session.directory) return { items: [], source: "workspace" };
  // 403 outside the roots (or inside the console's data folder), 400 when it is gone.
  const dir = await resolveWorkspaceDir(session.directory, app.config.workspaceRoots);
  return { items: rankFiles(await listFiles(dir), q.q, q.limit), source: "workspace" };
}

/** A path a listing may offer: relative, and not climbing out of its directory. */
function isRelativePath(p: unknown): p is string {
  return (
    typeof p === "string" && p !== "" && !path.isAbsolute(p) && !p.split(/[\\/]/).includes("..") && !p.includes("\0")
  );
}

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

/* ------------------------------------------------------------------ prompts */

/**
 * A prompt's `file://` parts (mentioned files, which the backend reads itself) must name files inside
 * the session's directory: 403 otherwise, 400 for a malformed URL or a backend that takes no files by
 * path. The path as written must be inside; and where the directory exists on this machine, so must
 * the path with its symbolic links resolved (a link to a file outside, or one whose target is
 * missing, is refused). A directory that is not here (a remote backend's) is checked as written.
 */
export async function confineFileParts(app: Deps, backendId: string, sessionId: string, body: PromptBody) {
  const urls = body.parts.flatMap((p) => (p.type === "file" && /^file:/i.test(p.url) ? [p.url] : []));
  if (!urls.length) return;
  const info = app.backends.require(backendId).info();
  if (info.capabilities.mentions?.carry !== "file")
    throw ApiError.badRequest(`${info.label} takes no files by path (file:// URLs)`);
  const session = (await app.hub.open(backendId, sessionId)).snapshot().session;
  const dir = session.directory ? path.resolve(session.directory) : undefined;
  const realDir = dir ? await fs.realpath(dir).catch(() => undefined) : undefined;
  for (const url of urls) {
    let p: string;
    try {
      p = path.resolve(fileURLToPath(url));
    } catch {
      throw ApiError.badRequest("A file:// URL in the prompt is malformed");
    }
    if (!dir || !isInside(dir, p) || p === dir)
      throw new ApiError("forbidden", "A mentioned file lies outside the session's directory");
    if (realDir === undefined) continue;
    const real = await resolveLinks(p);
    if (real === undefined || !isInside(realDir, real) || real === realDir)
      throw new ApiError("forbidden", "A mentioned file lies outside the session's directory");
  }
}

/**
 * `p` (absolute, `..` collapsed) with its symbolic links resolved: the real path of its nearest
 * existing ancestor, then the missing rest. Undefined when a link in it dangles (its target may lie
 * anywhere, and be created later) or a component cannot be read.
 */
async function resolveLinks(p: string): Promise<string | undefined> {
  const rest: string[] = [];
  for (let cur = p; ; ) {
    try {
      return path.join(await fs.realpath(cur), ...rest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
      const exists = await fs.lstat(cur).then(
        () => true,
        () => false,
      );
      const up = path.dirname(cur);
      if (exists || up === cur) return undefined;
      rest.unshift(path.basename(cur));
      cur = up;
    }
  }
}
