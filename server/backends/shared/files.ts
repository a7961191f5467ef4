import "server-only";
import { constants as fsConstants } from "node:fs";
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
    readonly reason: "not-absolute" | "not-found" | "outside" | "not-a-file",
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "ConfinedPathError";
  }
}

const OUTSIDE = "path is outside the session's working directory";
const code = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

/**
 * A path an agent may touch on the console's side (ACP `fs/read_text_file`, `fs/write_text_file`
 * and the like): absolute, and after resolving symlinks inside `root` (the session's directory).
 * For a write, a missing file is fine when its parent directory exists inside `root`; a symbolic
 * link whose target is missing is not (writing would create the target wherever the link points).
 * This is the check only: `readConfinedText` and `writeConfinedText` also open the file so that a
 * link swapped in after the check is not followed.
 */
export async function confinePath(root: string, p: string, forWrite: boolean): Promise<string> {
  if (!path.isAbsolute(p)) throw new ConfinedPathError("not-absolute", p, "path must be absolute");
  const realRoot = await fs.realpath(root);
  let real: string;
  try {
    real = await fs.realpath(p);
  } catch (err) {
    if (!forWrite || code(err) !== "ENOENT") throw new ConfinedPathError("not-found", p, `Resource not found: ${p}`);
    let parent: string;
    try {
      parent = await fs.realpath(path.dirname(p));
    } catch {
      throw new ConfinedPathError("not-found", path.dirname(p), `Resource not found: ${path.dirname(p)}`);
    }
    const base = path.basename(p);
    if (base === "." || base === "..") throw new ConfinedPathError("not-a-file", p, `Not a file: ${p}`);
    real = path.join(parent, base);
    // The name exists but does not resolve: a dangling link (its target may lie anywhere).
    if (
      await fs.lstat(real).then(
        () => true,
        () => false,
      )
    )
      throw new ConfinedPathError("outside", p, `${OUTSIDE} (a symbolic link to a missing file)`);
  }
  if (!isInside(realRoot, real)) throw new ConfinedPathError("outside", p, OUTSIDE);
  return real;
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fsConstants;
// Not on Windows: there the checks above stand alone.
const O_NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fsConstants.O_NONBLOCK ?? 0;

/**
 * Opens `real` (a path `confinePath` returned: no link in it when checked) without following a link
 * put in its place since (`O_NOFOLLOW`; `O_NONBLOCK` so that a FIFO cannot hold the call), and then
 * checks what was opened: a regular file, and — where the system says which file a descriptor is
 * (Linux's /proc/self/fd) — still inside the root, in case a parent folder was swapped for a link.
 * Returns the handle and whether this call created the file.
 */
export async function openConfined(
  root: string,
  p: string,
  real: string,
  forWrite: boolean,
): Promise<{ fh: fs.FileHandle; created: boolean }> {
  let fh: fs.FileHandle;
  let created = false;
  try {
    if (!forWrite) fh = await fs.open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    else
      try {
        fh = await fs.open(real, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o666);
        created = true;
      } catch (err) {
        if (code(err) !== "EEXIST") throw err;
        fh = await fs.open(real, O_WRONLY | O_NOFOLLOW | O_NONBLOCK);
      }
  } catch (err) {
    const c = code(err);
    if (c === "ELOOP" || c === "EMLINK") throw new ConfinedPathError("outside", p, `${OUTSIDE} (a symbolic link)`);
    if (c === "ENOENT" || c === "ENOTDIR") throw new ConfinedPathError("not-found", p, `Resource not found: ${p}`);
    if (c === "EISDIR" || c === "ENXIO") throw new ConfinedPathError("not-a-file", p, `Not a file: ${p}`);
    throw err;
  }
  const refuse = async (e: ConfinedPathError): Promise<never> => {
    await fh.close();
    if (created) await fs.unlink(real).catch(() => undefined);
    throw e;
  };
  if (!(await fh.stat()).isFile()) return refuse(new ConfinedPathError("not-a-file", p, `Not a file: ${p}`));
  const opened =
    process.platform === "linux" ? await fs.readlink(`/proc/self/fd/${fh.fd}`).catch(() => undefined) : undefined;
  if (opened !== undefined && !isInside(await fs.realpath(root), opened))
    return refuse(new ConfinedPathError("outside", p, OUTSIDE));
  return { fh, created };
}

/** An agent's `fs/read_text_file`: the file, confined to `root` (see `confinePath`, `openConfined`). */
export async function readConfinedText(root: string, p: string): Promise<string> {
  const real = await confinePath(root, p, false);
  const { fh } = await openConfined(root, p, real, false);
  try {
    return await fh.readFile("utf8");
  } finally {
    await fh.close();
  }
}

/**
 * An agent's `fs/write_text_file`: `content` replaces the file, confined to `root`. A link inside
 * the root to a file inside it is followed; a link leading outside, a dangling link, a folder
 * linked from outside or a link swapped in during the call is refused and nothing is written.
 */
export async function writeConfinedText(root: string, p: string, content: string): Promise<void> {
  const real = await confinePath(root, p, true);
  const { fh } = await openConfined(root, p, real, true);
  try {
    await fh.truncate(0);
    await fh.writeFile(content, "utf8");
  } finally {
    await fh.close();
  }
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
 * (`agentCwd`); it must exist, be a directory, and lie inside the agent's directory, the console's
 * workspace or one of its workspace roots (a session's worktree sits beside its repository; 403
 * otherwise). Without `dir`, the agent's directory.
 */
export async function resolveSessionDirectory(
  dir: string | undefined,
  agentCwd: string,
  within: string | { workspace: string; workspaceRoots?: readonly string[] | undefined },
): Promise<string> {
  const root = await fs.realpath(agentCwd).catch(() => agentCwd);
  if (!dir) return root;
  const places = typeof within === "string" ? [within] : [within.workspace, ...(within.workspaceRoots ?? [])];
  const allowed = await Promise.all(places.map((w) => fs.realpath(w).catch(() => w)));
  let real: string;
  try {
    real = await fs.realpath(path.resolve(root, dir));
  } catch {
    throw ApiError.badRequest(`Directory does not exist: ${dir}`);
  }
  const st = await fs.stat(real);
  if (!st.isDirectory()) throw ApiError.badRequest(`Not a directory: ${dir}`);
  if (!isInside(root, real) && !allowed.some((w) => isInside(w, real)))
    throw new ApiError("forbidden", `Directory is outside the workspace: ${dir}`);
  return real;
}
