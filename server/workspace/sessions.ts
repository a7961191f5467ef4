import "server-only";
import type { CreateSessionBody, DeleteSessionQuery } from "@/lib/api";
import type { Session } from "@/lib/model";
import type { BackendRegistry } from "../backends/registry";
import type { ConsoleConfig } from "../config";
import type { Hub } from "../hub/hub";
import { resolveWorkspaceDir } from "../auth/workspace";
import { ApiError } from "../errors";
import { log } from "../log";
import { git, repoTop, worktreeOf } from "./git";
import { addWorktree, removeWorktree, slugFor } from "./worktree";

/**
 * What the workspace tools do around a session's life (docs/workspace.md): the directory every git
 * route works in, a new session opened in its own worktree, and the worktree's end with the session.
 */

/** The parts of the console these need (not ConsoleApp itself: server/app.ts builds what imports this). */
type Deps = { backends: BackendRegistry; hub: Hub; config: ConsoleConfig };

/** The session's directory, realpath'd and inside the workspace roots (403 outside, 409 when it has none). */
export async function sessionDir(
  app: Pick<Deps, "hub" | "config">,
  backendId: string,
  sessionId: string,
): Promise<string> {
  const session = (await app.hub.open(backendId, sessionId)).snapshot().session;
  if (!session.directory) throw ApiError.conflict("The session has no directory of its own", { directory: false });
  return resolveWorkspaceDir(session.directory, app.config.workspaceRoots);
}

/**
 * `POST …/sessions`: with `worktree: true`, a worktree is made from the workspace's HEAD (the
 * requested directory, else the console's workspace) and the session opens in it. A session the
 * backend refuses leaves no worktree and no branch behind.
 */
export async function createSession(app: Deps, backendId: string, body: CreateSessionBody): Promise<Session> {
  const adapter = app.backends.require(backendId);
  const { worktree, branch, ...input } = body;
  // Realpath'd and kept inside the workspace roots, symlinks included (403 otherwise).
  if (input.directory !== undefined)
    input.directory = await resolveWorkspaceDir(input.directory, app.config.workspaceRoots);
  if (!worktree) return adapter.createSession(input);
  const from = input.directory ?? app.config.workspace;
  const wt = await addWorktree(from, app.config.workspaceRoots, {
    slug: slugFor(input.title),
    ...(branch ? { branch } : {}),
  });
  try {
    const session = await adapter.createSession({ ...input, directory: wt.path });
    log.info("session opened in its own worktree", { backendId, sessionId: session.id, branch: wt.branch });
    return { ...session, directory: session.directory ?? wt.path, worktree: wt };
  } catch (err) {
    await removeWorktree(wt.path, { deleteBranch: true }).catch((e: unknown) =>
      log.warn("could not remove the worktree of a session that was not made", { path: wt.path, error: String(e) }),
    );
    throw err;
  }
}

/** The session's worktree, when the console made one for it (null otherwise, or when it is gone). */
export async function sessionWorktree(app: Pick<Deps, "hub" | "config">, backendId: string, sessionId: string) {
  const dir = await sessionDir(app, backendId, sessionId).catch(() => undefined);
  if (!dir || !(await repoTop(dir))) return null;
  const branch = (await git(dir, ["symbolic-ref", "--short", "-q", "HEAD"])).stdout.trim();
  return worktreeOf(dir, branch || null);
}

/**
 * Before a session is deleted: with `worktree=remove`, its worktree goes (refused, 409, while it
 * holds uncommitted changes: then the session stays too), and its branch only with `branch=delete`.
 */
export async function beforeDelete(app: Deps, backendId: string, sessionId: string, q: DeleteSessionQuery) {
  if (q.worktree !== "remove") return undefined;
  const wt = await sessionWorktree(app, backendId, sessionId);
  if (!wt) throw ApiError.conflict("The session has no worktree the console made: nothing to remove");
  return removeWorktree(wt.path, { deleteBranch: q.branch === "delete" });
}
