/**
 * The workspace tools' API (docs/workspace.md): a session's git state and what the Git panel does
 * with it. Isomorphic: the routes validate with these schemas, the browser imports only the types.
 */
import { z } from "zod";

export const GitFileStatus = z.enum(["added", "modified", "deleted", "renamed", "untracked"]);
export type GitFileStatus = z.infer<typeof GitFileStatus>;

export const GitFile = z.object({
  /** Relative to the session's directory. */
  path: z.string(),
  status: GitFileStatus,
  /** Staged for the next commit (a file with both staged and unstaged changes is listed twice). */
  staged: z.boolean(),
  /** A rename's former path. */
  from: z.string().optional(),
});
export type GitFile = z.infer<typeof GitFile>;

export const GitWorktree = z.object({ path: z.string(), branch: z.string(), base: z.string() });
export type GitWorktree = z.infer<typeof GitWorktree>;

export const GitState = z.object({
  /** The checked-out branch; null on a detached HEAD. */
  branch: z.string().nullable(),
  /** The commit this session's worktree started from, when the console made it one. */
  base: z.string().nullable(),
  head: z.string().nullable(),
  upstream: z.string().nullable(),
  ahead: z.number().int(),
  behind: z.number().int(),
  files: z.array(GitFile),
  /** Set when the session's directory is a worktree the console made (`switchboard/<slug>`). */
  worktree: GitWorktree.nullable(),
});
export type GitState = z.infer<typeof GitState>;

const relPath = z.string().min(1).max(4096);
export const GitPathsBody = z.object({ paths: z.array(relPath).min(1).max(1000) }).strict();
export type GitPathsBody = z.infer<typeof GitPathsBody>;

export const GitCommitBody = z.object({ message: z.string().trim().min(1).max(20_000) }).strict();
export type GitCommitBody = z.infer<typeof GitCommitBody>;

export const GitCommitResult = z.object({ commit: z.string() });
export type GitCommitResult = z.infer<typeof GitCommitResult>;

export const GitPushResult = z.object({ remote: z.string(), branch: z.string(), commit: z.string() });
export type GitPushResult = z.infer<typeof GitPushResult>;

export const GitMergeResult = z.object({ into: z.string(), commit: z.string() });
export type GitMergeResult = z.infer<typeof GitMergeResult>;

/* ------------------------------------------------------------------------------ terminals */

const cols = z.number().int().min(2).max(500);
const rows = z.number().int().min(1).max(300);
export const TerminalOpenBody = z.object({ cols: cols.default(80), rows: rows.default(24) }).strict();
export type TerminalOpenBody = z.infer<typeof TerminalOpenBody>;
export const TerminalResizeBody = z.object({ cols, rows }).strict();
export type TerminalResizeBody = z.infer<typeof TerminalResizeBody>;
export const TerminalInputBody = z.object({ data: z.string().min(1).max(65_536) }).strict();
export type TerminalInputBody = z.infer<typeof TerminalInputBody>;
/** `POST /api/backends/{id}/login-terminal`: a backend's terminal login (Settings → *Run in terminal*). */
export const LoginTerminalBody = z
  .object({ methodId: z.string().min(1).max(200), cols: cols.default(80), rows: rows.default(24) })
  .strict();
export type LoginTerminalBody = z.infer<typeof LoginTerminalBody>;
export const TerminalStreamQuery = z.object({ after: z.coerce.number().int().min(0).optional() }).strict();

export interface TerminalSummary {
  id: string;
  cwd: string;
  createdAt: number;
  cols: number;
  rows: number;
  exitCode?: number;
}
/** One frame of `GET …/terminals/:t/stream`: output (its `id:` is the resume cursor) or the shell's exit. */
export type TerminalFrame = { data: string } | { exit: number };

/* ---------------------------------------------------------------------------- file browser */

export const FsQuery = z.object({ path: z.string().max(4096).default("") }).strict();
export const FsFileQuery = z.object({ path: z.string().min(1).max(4096) }).strict();

export interface FsEntry {
  name: string;
  /** Relative to the session's directory. */
  path: string;
  /** `link`: a symlink that leads outside the directory (listed, never opened). */
  type: "dir" | "file" | "link";
  size?: number;
  link?: true;
}
export interface FsListing {
  path: string;
  entries: FsEntry[];
  /** How many entries past the first 2,000 were left out. */
  truncated?: number;
}
export interface FsFile {
  path: string;
  size: number;
  text?: string;
  binary?: true;
  tooLarge?: true;
}

/** `GET /api/workspace`: the console's workspace, and whether a session can get a worktree there. */
export interface WorkspaceInfo {
  workspace: string;
  worktrees: boolean;
  reason?: string;
}
