import "server-only";
import fs from "node:fs";
import path from "node:path";
import { dataDirOf } from "../data-dir";
import { ApiError, isApiError } from "../errors";

/** `SWITCHBOARD_WORKSPACE_ROOTS` (`:`-separated), else the workspace: absolute, realpath'd. */
export function parseWorkspaceRoots(value: string | undefined, workspace: string): string[] {
  const raw =
    value
      ?.split(":")
      .map((s) => s.trim())
      .filter(Boolean) ?? [];
  const list = raw.length ? raw : [workspace];
  return [...new Set(list.map((r) => realpathOr(path.resolve(r))))];
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

export function isWithin(p: string, root: string): boolean {
  if (root === path.sep) return p.startsWith(path.sep);
  return p === root || p.startsWith(root + path.sep);
}

/**
 * Resolves a directory a client asked for: relative paths are taken from the first root; the real
 * path (symlinks followed, `..` collapsed by the file system) must be inside one of the roots
 * (403 otherwise) and must be an existing directory (400 otherwise). Returns the real path.
 */
export async function resolveWorkspaceDir(input: string, roots: readonly string[]): Promise<string> {
  if (roots.length === 0) throw new ApiError("forbidden", "No workspace roots are configured");
  if (input.trim() === "" || input.includes("\0")) throw ApiError.badRequest("Invalid directory");
  // Not path.resolve(): that collapses "link/.." lexically, while the OS goes to the parent of the
  // link's target. fs.promises.realpath is the native realpath(3), which resolves like the OS does.
  const candidate = path.isAbsolute(input) ? input : `${roots[0]!}${path.sep}${input}`;
  let real: string;
  try {
    real = await fs.promises.realpath(candidate);
  } catch {
    // It does not exist. Say "outside" when it would be, without revealing anything more.
    if (!roots.some((r) => isWithin(path.resolve(candidate), r))) throw outside();
    throw ApiError.badRequest("Directory does not exist");
  }
  if (!roots.some((r) => isWithin(real, r))) throw outside();
  if (isWithin(real, realpathOr(dataDirOf())))
    throw new ApiError("forbidden", "Directory is inside the console's data folder (it holds the console token)");
  const st = await fs.promises.stat(real).catch(() => undefined);
  if (!st?.isDirectory()) throw ApiError.badRequest("Not a directory");
  return real;
}

/** True when `err` is the 403 of a directory outside the roots (not a missing or malformed one). */
export function isOutsideRoots(err: unknown): boolean {
  return isApiError(err) && err.code === "forbidden";
}

function outside(): ApiError {
  return new ApiError("forbidden", "Directory is outside the workspace roots");
}
