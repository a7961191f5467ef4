import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isApiError } from "../errors";
import { commit, gitState, mergeIntoBase, parseStatus, push, stage, unstage } from "./git";
import { addWorktree, removeWorktree, slugFor, WORKTREES_FOLDER } from "./worktree";

/** Real git: a bare `origin`, a workspace cloned from it, worktrees made by the console's code. */
const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, ...args], {
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  }).trim();

let root: string;
let origin: string;
let repo: string;

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; details?: unknown }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isApiError(err)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return { code: err.code, message: err.message, details: err.details };
}

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-git-")));
  origin = path.join(root, "origin.git");
  repo = path.join(root, "project");
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin]);
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  sh(repo, "config", "user.name", "Workspace Owner");
  sh(repo, "config", "user.email", "owner@example.test");
  fs.writeFileSync(path.join(repo, "README.md"), "# project\n");
  fs.writeFileSync(path.join(repo, "shared.txt"), "one\n");
  sh(repo, "add", "-A");
  sh(repo, "commit", "-q", "-m", "initial");
  sh(repo, "remote", "add", "origin", origin);
  sh(repo, "push", "-q", "-u", "origin", "main");
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("status parsing", () => {
  it("reads branch, upstream, ahead/behind, staged and unstaged changes, renames and untracked files", () => {
    const out = [
      "# branch.oid 0123456789abcdef0123456789abcdef01234567",
      "# branch.head feature",
      "# branch.upstream origin/feature",
      "# branch.ab +2 -1",
      "1 M. N... 100644 100644 100644 aaa bbb src/a.ts",
      "1 .D N... 100644 100644 000000 aaa aaa gone.txt",
      "1 MM N... 100644 100644 100644 aaa bbb both.ts",
      "2 R. N... 100644 100644 100644 aaa aaa R100 new name.ts",
      "old name.ts",
      "? notes/new file.md",
      "",
    ].join("\0");
    const s = parseStatus(out);
    expect(s).toMatchObject({ branch: "feature", upstream: "origin/feature", ahead: 2, behind: 1 });
    expect(s.files).toEqual([
      { path: "src/a.ts", status: "modified", staged: true },
      { path: "gone.txt", status: "deleted", staged: false },
      { path: "both.ts", status: "modified", staged: true },
      { path: "both.ts", status: "modified", staged: false },
      { path: "new name.ts", status: "renamed", staged: true, from: "old name.ts" },
      { path: "notes/new file.md", status: "untracked", staged: false },
    ]);
  });

  it("a new repository has no HEAD commit and no branch upstream", () => {
    const s = parseStatus(["# branch.oid (initial)", "# branch.head main", ""].join("\0"));
    expect(s).toMatchObject({ head: null, branch: "main", upstream: null, ahead: 0, behind: 0, files: [] });
  });
});

describe("a session in its own worktree, with git from the console", () => {
  it("a workspace that is not a repository says so", async () => {
    const plain = fs.mkdtempSync(path.join(root, "plain-"));
    const r = await refusal(addWorktree(plain, [root], { slug: "x" }));
    expect(r.code).toBe("conflict");
    expect(r.message).toMatch(/not a git repository/);
    expect((await refusal(gitState(plain))).message).toMatch(/not a git repository/);
  });

  it("a worktree needs a place outside the repository inside the roots", async () => {
    const r = await refusal(addWorktree(repo, [repo], { slug: "x" }));
    expect(r.message).toMatch(/SWITCHBOARD_WORKSPACE_ROOTS/);
  });

  it("two worktrees change the same file without touching each other or the main checkout; stage, commit, push, merge", async () => {
    const a = await addWorktree(repo, [root], { slug: slugFor("Fix the parser", "aaaaaa") });
    const b = await addWorktree(repo, [root], { slug: slugFor("Fix the parser", "bbbbbb") });
    expect(a.branch).toBe("switchboard/fix-the-parser-aaaaaa");
    expect(a.path).toBe(path.join(root, WORKTREES_FOLDER, "project", "fix-the-parser-aaaaaa"));
    expect(a.base).toBe(sh(repo, "rev-parse", "HEAD"));
    expect(a.path.startsWith(repo + path.sep)).toBe(false);

    fs.writeFileSync(path.join(a.path, "shared.txt"), "from a\n");
    fs.writeFileSync(path.join(b.path, "shared.txt"), "from b\n");
    fs.writeFileSync(path.join(a.path, "added.ts"), "export const a = 1;\n");
    expect(fs.readFileSync(path.join(repo, "shared.txt"), "utf8")).toBe("one\n");
    expect(fs.existsSync(path.join(repo, "added.ts"))).toBe(false);

    let state = await gitState(a.path);
    expect(state.branch).toBe(a.branch);
    expect(state.worktree).toEqual(a);
    expect(state.base).toBe(a.base);
    expect(state.files).toEqual([
      { path: "shared.txt", status: "modified", staged: false },
      { path: "added.ts", status: "untracked", staged: false },
    ]);
    expect((await gitState(b.path)).files).toEqual([{ path: "shared.txt", status: "modified", staged: false }]);

    state = await stage(a.path, ["shared.txt", "added.ts"]);
    expect(state.files.every((f) => f.staged)).toBe(true);
    state = await unstage(a.path, ["added.ts"]);
    expect(state.files).toContainEqual({ path: "added.ts", status: "untracked", staged: false });
    await stage(a.path, ["added.ts"]);

    const { commit: sha } = await commit(a.path, "Fix the parser\n\nFrom the console.", {
      name: "Ada Operator",
      email: "ada@example.test",
    });
    expect(sh(a.path, "log", "-1", "--format=%an <%ae>|%s")).toBe("Ada Operator <ada@example.test>|Fix the parser");
    expect(sha).toBe(sh(a.path, "rev-parse", "HEAD"));
    expect((await refusal(commit(a.path, "again"))).message).toMatch(/Nothing is staged/);

    const pushed = await push(a.path);
    expect(pushed).toEqual({ remote: "origin", branch: a.branch, commit: sha });
    expect(sh(origin, "rev-parse", `refs/heads/${a.branch}`)).toBe(sha);
    expect((await gitState(a.path)).upstream).toBe(`origin/${a.branch}`);

    const merged = await mergeIntoBase(a.path);
    expect(merged.into).toBe("main");
    expect(fs.readFileSync(path.join(repo, "shared.txt"), "utf8")).toBe("from a\n");
    expect(sh(repo, "rev-parse", "HEAD")).toBe(merged.commit);

    // b changed the same line from the same base: its merge conflicts, and the main checkout is left clean.
    await stage(b.path, ["shared.txt"]);
    await commit(b.path, "Other fix");
    const conflict = await refusal(mergeIntoBase(b.path));
    expect(conflict.code).toBe("conflict");
    expect(conflict.message).toMatch(/conflicts in 1 file/);
    expect(conflict.details).toEqual({ files: ["shared.txt"] });
    expect(sh(repo, "status", "--porcelain")).toBe("");
    expect(fs.readFileSync(path.join(repo, "shared.txt"), "utf8")).toBe("from a\n");

    // Removing a worktree keeps its branch unless asked; the commits stay reachable.
    expect(await removeWorktree(b.path, { deleteBranch: false })).toEqual({ branch: b.branch, deleted: false });
    expect(fs.existsSync(b.path)).toBe(false);
    expect(sh(repo, "rev-parse", "--verify", `refs/heads/${b.branch}`)).toMatch(/^[0-9a-f]{40}$/);
  });

  it("paths outside the session's directory answer 403, and nothing is staged", async () => {
    const wt = await addWorktree(repo, [root], { slug: "outside-check" });
    fs.writeFileSync(path.join(wt.path, "inside.txt"), "x\n");
    fs.mkdirSync(path.join(root, "elsewhere"), { recursive: true });
    fs.symlinkSync(path.join(root, "elsewhere"), path.join(wt.path, "link"));
    for (const bad of ["../project/README.md", "/etc/passwd", "link/file.txt"]) {
      const r = await refusal(stage(wt.path, ["inside.txt", bad]));
      expect(r.code, bad).toBe("forbidden");
    }
    expect((await gitState(wt.path)).files.filter((f) => f.staged)).toEqual([]);
    await removeWorktree(wt.path, { deleteBranch: true }).catch(() => undefined);
  });

  it("a worktree with uncommitted changes is not removed", async () => {
    const wt = await addWorktree(repo, [root], { slug: "dirty" });
    fs.writeFileSync(path.join(wt.path, "shared.txt"), "unsaved work\n");
    const r = await refusal(removeWorktree(wt.path, { deleteBranch: true }));
    expect(r.code).toBe("conflict");
    expect(fs.readFileSync(path.join(wt.path, "shared.txt"), "utf8")).toBe("unsaved work\n");
    expect(sh(repo, "rev-parse", "--verify", "refs/heads/switchboard/dirty")).toMatch(/^[0-9a-f]{40}$/);
  });

  it("push without a remote to push to says so", async () => {
    const lone = path.join(root, "lone");
    execFileSync("git", ["init", "-q", "-b", "main", lone]);
    sh(lone, "config", "user.name", "x");
    sh(lone, "config", "user.email", "x@example.test");
    fs.writeFileSync(path.join(lone, "a.txt"), "a\n");
    await stage(lone, ["a.txt"]);
    await commit(lone, "first");
    expect((await refusal(push(lone))).message).toMatch(/no remote "origin"/);
    expect((await refusal(mergeIntoBase(lone))).message).toMatch(/not in a worktree/);
  });
});
