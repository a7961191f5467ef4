import "server-only";
import fs from "node:fs/promises";
import path from "node:path";
import type { GitWorktree } from "@/lib/workspace-api";
import { isWithin } from "../auth/workspace";
import { ApiError } from "../errors";
import { BASE_KEY, git, gitOk, INTO_KEY, repoTop, worktreeOf } from "./git";

/**
 * A session in its own worktree (docs/workspace.md): `git worktree add` from the workspace's HEAD
 * onto a new branch `switchboard/<slug>`, in `<root>/.switchboard-worktrees/<repository>/<slug>`,
 * outside the repository's own tree and inside a workspace root. The branch remembers, in the
 * repository's own config, the commit it started from and the branch it was made from, so every
 * replica and every restart sees the same.
 */

export const WORKTREES_FOLDER = ".switchboard-worktrees";

/** A short, safe folder and branch name from a title (or a random one). */
export function slugFor(title: string | undefined, random = Math.random().toString(36).slice(2, 8)): string {
  const words = (title ?? "")
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return words ? `${words}-${random}` : `session-${random}`;
}

/**
 * Where a worktree from `workspaceDir` would come from and go: the repository's top, its HEAD commit
 * and branch, and the workspace root beside it; or the reason there is none, in the words New
 * session shows (GET /api/workspace) and creation answers (409).
 */
async function locate(
  workspaceDir: string,
  roots: readonly string[],
): Promise<{ top: string; base: string; into: string; root: string } | { reason: string; repository?: false }> {
  const top = await repoTop(workspaceDir);
  if (!top)
    return { reason: "The workspace is not a git repository: a separate worktree needs one", repository: false };
  const base = (await git(top, ["rev-parse", "--verify", "-q", "HEAD"])).stdout.trim();
  if (!base) return { reason: "The repository has no commit yet: a worktree starts from one" };
  const root = roots.find((r) => isWithin(path.dirname(top), r));
  if (!root)
    return {
      reason:
        "A worktree goes beside the repository, outside the workspace roots here: add the repository's parent folder to SWITCHBOARD_WORKSPACE_ROOTS",
    };
  const into = (await git(top, ["symbolic-ref", "--short", "-q", "HEAD"])).stdout.trim();
  return { top, base, into, root };
}

/** Whether a session can get its own worktree from `workspaceDir`, and why not. */
export async function worktreeReadiness(
  workspaceDir: string,
  roots: readonly string[],
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const at = await locate(workspaceDir, roots);
  return "reason" in at ? { ok: false, reason: at.reason } : { ok: true };
}

/** Creates the worktree; 409 with a sentence when the workspace is no repository or has no place for one. */
export async function addWorktree(
  workspaceDir: string,
  roots: readonly string[],
  opts: { slug: string; branch?: string },
): Promise<GitWorktree> {
  const at = await locate(workspaceDir, roots);
  if ("reason" in at) throw ApiError.conflict(at.reason, at.repository === false ? { repository: false } : undefined);
  const { top, base, into, root } = at;
  const branch = opts.branch ?? `switchboard/${opts.slug}`;
  if ((await git(top, ["check-ref-format", "--branch", branch])).code !== 0)
    throw ApiError.badRequest(`"${branch}" is not a valid branch name`);
  if ((await git(top, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`])).code === 0)
    throw ApiError.conflict(`A branch "${branch}" already exists`);

  const where = path.join(root, WORKTREES_FOLDER, path.basename(top), opts.slug.replace(/[^A-Za-z0-9._-]/g, "-"));
  await fs.mkdir(path.dirname(where), { recursive: true, mode: 0o755 });
  await gitOk(top, ["worktree", "add", "-q", "-b", branch, where, base]);
  await gitOk(top, ["config", `branch.${branch}.${BASE_KEY}`, base]);
  if (into) await gitOk(top, ["config", `branch.${branch}.${INTO_KEY}`, into]);
  return { path: await fs.realpath(where), branch, base };
}

/**
 * Removes a session's worktree (refused by git, 409, while it holds changes not committed) and,
 * only when asked, deletes its branch; a kept branch keeps its commits.
 */
export async function removeWorktree(
  dir: string,
  opts: { deleteBranch: boolean },
): Promise<{ branch: string; deleted: boolean }> {
  const top = await repoTop(dir);
  if (!top) throw ApiError.conflict("The session's directory is not a git repository");
  const branch = (await git(top, ["symbolic-ref", "--short", "-q", "HEAD"])).stdout.trim();
  const wt = await worktreeOf(top, branch || null);
  if (!wt) throw ApiError.conflict("The session's directory is not a worktree the console made");
  const common = path.resolve(top, (await gitOk(top, ["rev-parse", "--git-common-dir"])).trim());
  const main = path.dirname(common);
  await gitOk(main, ["worktree", "remove", wt.path]);
  if (opts.deleteBranch) await gitOk(main, ["branch", "-D", wt.branch]);
  return { branch: wt.branch, deleted: opts.deleteBranch };
}
