import "server-only";
import fs from "node:fs/promises";
import path from "node:path";
import { ApiError } from "../../errors";

/** True when `p` is `root` or inside it (both already resolved). */
export function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Why an agent's file request was refused (mapped to the protocol's own error by the adapter). */
export class ConfinedPathError extends Error {
  constructor(
    readonly reason: "not-absolute" | "not-found" | "outside",
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "ConfinedPathError";
  }
}

/**
 * A path an agent may touch on the console's side (ACP `fs/read_text_file`, `fs/write_text_file`
 * and the like): absolute, and after resolving symlinks inside `root` (the session's directory).
 * For a write, a missing file is fine when its parent directory exists inside `root`.
 */
export async function confinePath(root: string, p: string, forWrite: boolean): Promise<string> {
  if (!path.isAbsolute(p)) throw new ConfinedPathError("not-absolute", p, "path must be absolute");
  const realRoot = await fs.realpath(root);
  let real: string;
  try {
    real = await fs.realpath(p);
  } catch {
    if (!forWrite) throw new ConfinedPathError("not-found", p, `Resource not found: ${p}`);
    let parent: string;
    try {
      parent = await fs.realpath(path.dirname(p));
    } catch {
      throw new ConfinedPathError("not-found", path.dirname(p), `Resource not found: ${path.dirname(p)}`);
    }
    real = path.join(parent, path.basename(p));
  }
  if (!isInside(realRoot, real))
    throw new ConfinedPathError("outside", p, "path is outside the session's working directory");
  return real;
}

/** Lines `line` (1-based) .. `line + limit - 1` of a text; the whole text without either. */
export function textSlice(text: string, line?: number, limit?: number): string {
  if (line === undefined && limit === undefined) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  return lines.slice(start, limit !== undefined ? start + limit : undefined).join("\n");
}

/**
 * The directory of a new session of a stdio agent: `dir` resolved from the agent's own directory
 * (`agentCwd`); it must exist, be a directory, and lie inside the agent's directory or the
 * console's workspace (403 otherwise). Without `dir`, the agent's directory.
 */
export async function resolveSessionDirectory(
  dir: string | undefined,
  agentCwd: string,
  workspace: string,
): Promise<string> {
  const root = await fs.realpath(agentCwd).catch(() => agentCwd);
  if (!dir) return root;
  const ws = await fs.realpath(workspace).catch(() => workspace);
  let real: string;
  try {
    real = await fs.realpath(path.resolve(root, dir));
  } catch {
    throw ApiError.badRequest(`Directory does not exist: ${dir}`);
  }
  const st = await fs.stat(real);
  if (!st.isDirectory()) throw ApiError.badRequest(`Not a directory: ${dir}`);
  if (!isInside(root, real) && !isInside(ws, real))
    throw new ApiError("forbidden", `Directory is outside the workspace: ${dir}`);
  return real;
}
