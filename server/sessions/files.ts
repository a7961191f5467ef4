import "server-only";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FileSearchQuery, FileSearchResult, PromptBody } from "@/lib/api";
import type { ConsoleApp } from "../app";
import { resolveWorkspaceDir } from "../auth/workspace";
import { isInside } from "../backends/shared/files";
import { ApiError } from "../errors";
import { listFiles, rankFiles } from "./file-listing";

// The listing itself lives in ./file-listing.ts (the compare service uses it without the app's types).
export {
  clearFileListings,
  LIST_TIMEOUT_MS,
  LIST_TTL_MS,
  listFiles,
  MAX_LISTED,
  rankFiles,
  runRg,
} from "./file-listing";

type Deps = Pick<ConsoleApp, "backends" | "hub" | "config">;

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
