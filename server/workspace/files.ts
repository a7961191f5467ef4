import "server-only";
import fs from "node:fs/promises";
import path from "node:path";
import type { FsEntry, FsFile, FsListing } from "@/lib/workspace-api";
import { ApiError } from "../errors";

/**
 * The file browser's reads (docs/workspace.md, "The file browser"): one folder's entries and one
 * file's text, inside the session's directory only. Every path is resolved with its symlinks
 * (`realpath(3)`) and must stay inside that directory, as mentions do (403 otherwise); nothing is
 * ever written.
 */

/** Files larger than this say so instead of loading. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Entries listed from one folder (the rest are counted). */
export const MAX_ENTRIES = 2000;
/** Folders the browser does not list: git's own, and the console's worktrees. */
const HIDDEN = new Set([".git", ".switchboard-worktrees"]);

function inside(real: string, root: string): boolean {
  return real === root || real.startsWith(root + path.sep);
}

/** The real path of `rel` in `dir`: relative, no NUL, and inside `dir` once symlinks are resolved (403); 404 when missing. */
export async function resolveInside(dir: string, rel: string): Promise<{ root: string; real: string }> {
  const root = await fs.realpath(dir);
  if (rel.includes("\0") || path.isAbsolute(rel))
    throw new ApiError("forbidden", "The path is outside the session's directory");
  const lexical = path.resolve(root, rel);
  if (!inside(lexical, root)) throw new ApiError("forbidden", "The path is outside the session's directory");
  let real: string;
  try {
    real = await fs.realpath(lexical);
  } catch {
    throw ApiError.notFound("No such file or folder");
  }
  if (!inside(real, root)) throw new ApiError("forbidden", "The path leads outside the session's directory");
  return { root, real };
}

/** One folder's entries, folders first, then by name; `path`s are relative to the session's directory. */
export async function listFolder(dir: string, rel: string): Promise<FsListing> {
  const { root, real } = await resolveInside(dir, rel || ".");
  const st = await fs.stat(real);
  if (!st.isDirectory()) throw ApiError.badRequest("Not a folder");
  const dirents = await fs.readdir(real, { withFileTypes: true });
  const entries: FsEntry[] = [];
  for (const d of dirents) {
    if (HIDDEN.has(d.name)) continue;
    const abs = path.join(real, d.name);
    const relPath = path.relative(root, abs);
    if (d.isDirectory()) entries.push({ name: d.name, path: relPath, type: "dir" });
    else if (d.isFile()) {
      const size = await fs
        .stat(abs)
        .then((s) => s.size)
        .catch(() => 0);
      entries.push({ name: d.name, path: relPath, type: "file", size });
    } else if (d.isSymbolicLink()) {
      // A link is shown for what it leads to when that is inside; a link out is listed but not opened.
      const target = await fs.realpath(abs).catch(() => undefined);
      const tst = target && inside(target, root) ? await fs.stat(target).catch(() => undefined) : undefined;
      entries.push({
        name: d.name,
        path: relPath,
        type: tst?.isDirectory() ? "dir" : tst?.isFile() ? "file" : "link",
        ...(tst?.isFile() ? { size: tst.size } : {}),
        link: true,
      });
    }
  }
  entries.sort((a, b) =>
    (a.type === "dir") !== (b.type === "dir") ? (a.type === "dir" ? -1 : 1) : a.name.localeCompare(b.name),
  );
  const rootRel = path.relative(root, real);
  return {
    path: rootRel,
    entries: entries.slice(0, MAX_ENTRIES),
    ...(entries.length > MAX_ENTRIES ? { truncated: entries.length - MAX_ENTRIES } : {}),
  };
}

/** A file's text; a binary file or one over 1 MB says so instead. */
export async function readText(dir: string, rel: string): Promise<FsFile> {
  const { root, real } = await resolveInside(dir, rel);
  const st = await fs.stat(real);
  if (!st.isFile()) throw ApiError.badRequest("Not a file");
  const relPath = path.relative(root, real);
  if (st.size > MAX_FILE_BYTES) return { path: relPath, size: st.size, tooLarge: true };
  // O_NOFOLLOW on the resolved path: a link swapped in after the check is not followed.
  const handle = await fs.open(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const buf = await handle.readFile();
    if (buf.length > MAX_FILE_BYTES) return { path: relPath, size: buf.length, tooLarge: true };
    if (buf.subarray(0, 8000).includes(0)) return { path: relPath, size: buf.length, binary: true };
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
    } catch {
      return { path: relPath, size: buf.length, binary: true };
    }
    return { path: relPath, size: buf.length, text };
  } finally {
    await handle.close();
  }
}
