import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8" }).trim();

/**
 * A repository of its own inside `root` (a workspace root of the console under test), with a first
 * commit of `files` and a bare `origin` beside it: what the worktree, git panel and compare tests
 * start from.
 */
export function makeRepo(
  root: string,
  name: string,
  files: Record<string, string> = { "README.md": "# app\n" },
): { repo: string; origin: string } {
  const repo = path.join(root, name);
  const origin = path.join(root, `${name}-origin.git`);
  execFileSync("git", ["init", "-q", "--bare", "-b", "main", origin]);
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  gitIn(repo, "config", "user.name", "Workspace Owner");
  gitIn(repo, "config", "user.email", "owner@example.test");
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo, p)), { recursive: true });
    fs.writeFileSync(path.join(repo, p), text);
  }
  gitIn(repo, "add", "-A");
  gitIn(repo, "commit", "-q", "-m", "initial");
  gitIn(repo, "remote", "add", "origin", origin);
  gitIn(repo, "push", "-q", "-u", "origin", "main");
  return { repo, origin };
}
