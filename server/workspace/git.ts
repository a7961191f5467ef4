import "server-only";
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import type { GitFile, GitFileStatus, GitMergeResult, GitPushResult, GitState, GitWorktree } from "@/lib/workspace-api";
import { ApiError } from "../errors";

/**
 * Git for a session's directory (docs/workspace.md): the `git` CLI, run with an argument array (no
 * shell), always with `-C <the session's directory>`, never prompting, with bounded output and
 * time. A failing command answers 409 with git's own message.
 */

const MAX_OUTPUT = 8 * 1024 * 1024;
const TIMEOUT_MS = 60_000;
/** The git config keys that mark a branch the console made for a session's worktree. */
export const BASE_KEY = "switchboardBase";
export const INTO_KEY = "switchboardInto";

export interface GitRun {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs git in `dir`; resolves with its exit code (never throws for a non-zero exit). */
export function git(dir: string, args: readonly string[], opts: { input?: string } = {}): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      ["-C", dir, "--literal-pathspecs", "-c", "core.quotePath=false", ...args],
      {
        maxBuffer: MAX_OUTPUT,
        timeout: TIMEOUT_MS,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "", LC_ALL: "C" },
      },
      (err, stdout, stderr) => {
        if (err && typeof (err as { code?: unknown }).code !== "number") {
          reject(ApiError.conflict(`git could not run: ${err.message}`));
          return;
        }
        resolve({ stdout, stderr, code: err ? Number((err as { code: number }).code) : 0 });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Runs git and answers 409 with git's message when it fails. */
export async function gitOk(dir: string, args: readonly string[], opts: { input?: string } = {}): Promise<string> {
  const r = await git(dir, args, opts);
  if (r.code !== 0) throw ApiError.conflict(gitMessage(r), { git: args[0] });
  return r.stdout;
}

function gitMessage(r: GitRun): string {
  const text = (r.stderr.trim() || r.stdout.trim() || `git exited with ${r.code}`).slice(0, 2000);
  return text;
}

/** The repository's top folder, or undefined when `dir` is not in a git work tree. */
export async function repoTop(dir: string): Promise<string | undefined> {
  const r = await git(dir, ["rev-parse", "--show-toplevel"]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

async function requireRepo(dir: string): Promise<string> {
  const top = await repoTop(dir);
  if (!top) throw ApiError.conflict("The session's directory is not a git repository", { repository: false });
  return top;
}

async function configGet(dir: string, key: string): Promise<string | undefined> {
  const r = await git(dir, ["config", "--get", key]);
  return r.code === 0 ? r.stdout.trim() || undefined : undefined;
}

/** The worktree the console made for this directory's branch, if it is one. */
export async function worktreeOf(dir: string, branch: string | null): Promise<GitWorktree | null> {
  if (!branch) return null;
  const base = await configGet(dir, `branch.${branch}.${BASE_KEY}`);
  if (!base) return null;
  const top = await repoTop(dir);
  return top ? { path: top, branch, base } : null;
}

/* --------------------------------------------------------------------------------- status */

const LETTER: Record<string, GitFileStatus> = {
  A: "added",
  C: "added",
  M: "modified",
  T: "modified",
  U: "modified",
  D: "deleted",
  R: "renamed",
};

/** `git status --porcelain=v2 --branch -z`, parsed; paths relative to the repository's top. */
export function parseStatus(out: string): Omit<GitState, "base" | "worktree"> {
  const state: Omit<GitState, "base" | "worktree"> = {
    branch: null,
    head: null,
    upstream: null,
    ahead: 0,
    behind: 0,
    files: [],
  };
  const tokens = out.split("\0");
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.startsWith("# branch.oid ")) {
      const oid = t.slice(13);
      state.head = oid === "(initial)" ? null : oid;
    } else if (t.startsWith("# branch.head ")) {
      const head = t.slice(14);
      state.branch = head === "(detached)" ? null : head;
    } else if (t.startsWith("# branch.upstream ")) state.upstream = t.slice(18);
    else if (t.startsWith("# branch.ab ")) {
      const m = /^\+(\d+) -(\d+)$/.exec(t.slice(12));
      if (m) {
        state.ahead = Number(m[1]);
        state.behind = Number(m[2]);
      }
    } else if (t.startsWith("? ")) state.files.push({ path: t.slice(2), status: "untracked", staged: false });
    else if (t.startsWith("1 ") || t.startsWith("2 ") || t.startsWith("u ")) {
      const kind = t[0];
      // 1 XY sub mH mI mW hH hI path · 2 XY sub mH mI mW hH hI Xscore path\0orig · u XY sub m1 m2 m3 mW h1 h2 h3 path
      const fields = t.split(" ");
      const xy = fields[1]!;
      const pathAt = kind === "1" ? 8 : kind === "2" ? 9 : 10;
      const file = fields.slice(pathAt).join(" ");
      const from = kind === "2" ? tokens[++i] : undefined;
      const add = (letter: string, staged: boolean) => {
        const status = kind === "u" ? "modified" : LETTER[letter];
        if (!status) return;
        state.files.push({ path: file, status, staged, ...(from && status === "renamed" ? { from } : {}) });
      };
      if (kind === "u") add("U", false);
      else {
        if (xy[0] !== ".") add(xy[0]!, true);
        if (xy[1] !== ".") add(xy[1]!, false);
      }
    }
  }
  return state;
}

/** `GET …/git`: the branch, its base, ahead/behind, and the changed files under the session's directory. */
export async function gitState(dir: string): Promise<GitState> {
  await requireRepo(dir);
  const prefix = (await gitOk(dir, ["rev-parse", "--show-prefix"])).trim();
  const parsed = parseStatus(await gitOk(dir, ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"]));
  const files: GitFile[] = [];
  for (const f of parsed.files) {
    if (prefix && !f.path.startsWith(prefix)) continue;
    const from =
      f.from !== undefined && (!prefix || f.from.startsWith(prefix)) ? f.from.slice(prefix.length) : undefined;
    files.push({ ...f, path: f.path.slice(prefix.length), ...(from !== undefined ? { from } : {}) });
  }
  const worktree = await worktreeOf(dir, parsed.branch);
  return { ...parsed, files, base: worktree?.base ?? null, worktree };
}

/* ---------------------------------------------------------------------------- stage, commit */

/**
 * The paths as given, each checked to lie inside the session's directory (403 for any that does
 * not, before anything is staged): relative, no `..` out of it, and no symlinked folder leading out.
 */
export async function insidePaths(dir: string, paths: readonly string[]): Promise<string[]> {
  const realDir = await fs.realpath(dir);
  for (const p of paths) {
    const outside = () => new ApiError("forbidden", `"${p}" is outside the session's directory`, { path: p });
    if (p.includes("\0") || path.isAbsolute(p)) throw outside();
    const abs = path.resolve(realDir, p);
    if (abs !== realDir && !abs.startsWith(realDir + path.sep)) throw outside();
    // The nearest existing ancestor, resolved: a symlinked folder must not lead out.
    let probe = path.dirname(abs);
    for (;;) {
      const real = await fs.realpath(probe).catch(() => undefined);
      if (real !== undefined) {
        if (real !== realDir && !real.startsWith(realDir + path.sep)) throw outside();
        break;
      }
      probe = path.dirname(probe);
    }
  }
  return [...paths];
}

export async function stage(dir: string, paths: readonly string[]): Promise<GitState> {
  await requireRepo(dir);
  const ok = await insidePaths(dir, paths);
  // `add -A` per path: a deleted file's removal is staged too.
  await gitOk(dir, ["add", "-A", "--", ...ok]);
  return gitState(dir);
}

export async function unstage(dir: string, paths: readonly string[]): Promise<GitState> {
  await requireRepo(dir);
  const ok = await insidePaths(dir, paths);
  const hasHead = (await git(dir, ["rev-parse", "--verify", "-q", "HEAD"])).code === 0;
  if (hasHead) await gitOk(dir, ["reset", "-q", "HEAD", "--", ...ok]);
  else await gitOk(dir, ["rm", "--cached", "-r", "-q", "--", ...ok]);
  return gitState(dir);
}

export interface Author {
  name: string;
  email: string;
}

/** Commits what is staged; the author is the person who pressed Commit when they signed in with an e-mail. */
export async function commit(dir: string, message: string, author?: Author): Promise<{ commit: string }> {
  await requireRepo(dir);
  const staged = await git(dir, ["diff", "--cached", "--quiet"]);
  if (staged.code === 0) throw ApiError.conflict("Nothing is staged: stage the files to commit first");
  const args = ["commit", "-q", "-F", "-"];
  if (author) args.push(`--author=${author.name.replace(/[<>\n]/g, "")} <${author.email.replace(/[<>\s]/g, "")}>`);
  await gitOk(dir, args, { input: message });
  return { commit: (await gitOk(dir, ["rev-parse", "HEAD"])).trim() };
}

/* ------------------------------------------------------------------------------ push, merge */

/** Pushes the session's branch to its upstream's remote, else `origin` (setting the upstream). */
export async function push(dir: string): Promise<GitPushResult> {
  const state = await gitState(dir);
  if (!state.branch) throw ApiError.conflict("HEAD is detached: there is no branch to push");
  if (!state.head) throw ApiError.conflict("The branch has no commit yet");
  const upstreamRemote = await configGet(dir, `branch.${state.branch}.remote`);
  const remote = upstreamRemote && upstreamRemote !== "." ? upstreamRemote : "origin";
  const remotes = (await gitOk(dir, ["remote"])).split("\n").map((s) => s.trim());
  if (!remotes.includes(remote)) throw ApiError.conflict(`The workspace has no remote "${remote}" to push to`);
  const merge = await configGet(dir, `branch.${state.branch}.merge`);
  const target = upstreamRemote && merge ? merge : `refs/heads/${state.branch}`;
  await gitOk(dir, ["push", "--porcelain", ...(upstreamRemote ? [] : ["-u"]), remote, `HEAD:${target}`]);
  return { remote, branch: target.replace(/^refs\/heads\//, ""), commit: state.head };
}

/** The repository's main checkout (the first worktree `git worktree list` gives). */
async function mainCheckout(dir: string): Promise<string> {
  const out = await gitOk(dir, ["worktree", "list", "--porcelain"]);
  const first = /^worktree (.+)$/m.exec(out)?.[1];
  if (!first) throw ApiError.conflict("git listed no main checkout");
  return first;
}

/**
 * Merges the session's worktree branch into the branch it was made from, in the main checkout. A
 * conflict aborts the merge and answers 409 with the conflicting files; the main checkout is left
 * as it was.
 */
export async function mergeIntoBase(dir: string): Promise<GitMergeResult> {
  const state = await gitState(dir);
  if (!state.worktree)
    throw ApiError.conflict("This session is not in a worktree the console made: nothing to merge into");
  const into = await configGet(dir, `branch.${state.worktree.branch}.${INTO_KEY}`);
  if (!into) throw ApiError.conflict("The worktree was made from a detached HEAD: there is no branch to merge into");
  const main = await mainCheckout(dir);
  const current = (await git(main, ["symbolic-ref", "--short", "-q", "HEAD"])).stdout.trim();
  if (current !== into)
    throw ApiError.conflict(
      `The main checkout is on "${current || "a detached HEAD"}", not "${into}": check out ${into} there first`,
    );
  const r = await git(main, ["merge", "--no-ff", "--no-edit", state.worktree.branch]);
  if (r.code !== 0) {
    const conflicted = (await git(main, ["diff", "--name-only", "--diff-filter=U", "-z"])).stdout
      .split("\0")
      .filter(Boolean);
    if (conflicted.length) {
      await git(main, ["merge", "--abort"]);
      throw ApiError.conflict(
        `Merging ${state.worktree.branch} into ${into} conflicts in ${conflicted.length} file(s); nothing was merged`,
        {
          files: conflicted,
        },
      );
    }
    throw ApiError.conflict(gitMessage(r));
  }
  return { into, commit: (await gitOk(main, ["rev-parse", "HEAD"])).trim() };
}
