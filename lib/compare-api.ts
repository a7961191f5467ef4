/**
 * One task on several agents (docs/compare.md): the group's API. Isomorphic: the routes validate
 * with these schemas, the browser imports the types.
 */
import { z } from "zod";
import { PromptPart } from "./api";
import { ModelRef, PersonRef, type SessionStatus } from "./model";

export const MAX_TARGETS = 4;

export const CompareTarget = z
  .object({
    backendId: z.string().min(1).max(200),
    model: ModelRef.optional(),
    /** The agent or mode a prompt uses on backends that have them (OpenCode: `build`, `plan`). */
    agent: z.string().max(100).optional(),
  })
  .strict();
export type CompareTarget = z.infer<typeof CompareTarget>;

export const CreateCompareBody = z
  .object({
    prompt: z.string().trim().min(1).max(100_000),
    /**
     * More of the prompt, as the session prompt route takes it (lib/api.ts `PromptPart`): attached
     * files as `data:` URLs, sent to every target. A file by path (`file://`) is refused here: each
     * target has its own worktree, so files are mentioned by their path in `mentions`.
     */
    parts: z.array(PromptPart).max(50).optional(),
    /**
     * Files `@`-mentioned in the prompt, relative to the repository folder: each target gets its own
     * worktree's copy, carried the way its backend takes mentions (`Capabilities.mentions`).
     */
    mentions: z.array(z.string().min(1).max(4096)).max(50).optional(),
    targets: z
      .array(CompareTarget)
      .min(2, "Compare needs at least two targets")
      .max(MAX_TARGETS, `Compare takes at most ${MAX_TARGETS} targets`),
    /** The repository the worktrees come from (default: the console's workspace). */
    directory: z.string().max(4096).optional(),
    /** Run in each worktree when its turn ends (e.g. `npm test`). */
    testCommand: z.string().trim().min(1).max(1000).optional(),
  })
  .strict();
export type CreateCompareBody = z.infer<typeof CreateCompareBody>;

export const KeepBody = z
  .object({
    sessionId: z.string().min(1).max(300),
    /** `merge`: its branch into the base; `continue`: keep it as the session to go on with, unmerged. */
    how: z.enum(["merge", "continue"]).default("merge"),
    /** Delete the other sessions' branches too (kept by default: nothing is lost silently). */
    deleteOtherBranches: z.boolean().default(false),
  })
  .strict();
export type KeepBody = z.infer<typeof KeepBody>;

export const ComparePromptBody = z
  .object({
    text: z.string().trim().min(1).max(100_000),
    /** One session of the group; all of them when absent. */
    sessionId: z.string().max(300).optional(),
  })
  .strict();
export type ComparePromptBody = z.infer<typeof ComparePromptBody>;

export const CompareDiffQuery = z.object({ path: z.string().min(1).max(4096) }).strict();

/** `GET /api/compare/files`: the repository folder's files matching an `@` mention (the start form). */
export const CompareFilesQuery = z
  .object({
    q: z.string().max(500).default(""),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    /** The repository folder (default: the console's workspace). */
    directory: z.string().max(4096).optional(),
  })
  .strict();
export type CompareFilesQuery = z.infer<typeof CompareFilesQuery>;

export const TestResult = z.object({
  state: z.enum(["running", "done"]),
  exitCode: z.number().int().nullable(),
  /** The last 64 KB of stdout and stderr, interleaved. */
  output: z.string(),
  startedAt: z.number(),
  endedAt: z.number().optional(),
});
export type TestResult = z.infer<typeof TestResult>;

/** A session of the group as the console keeps it (store meta `compare:<id>`). */
export const CompareMember = z.object({
  backendId: z.string(),
  sessionId: z.string(),
  target: CompareTarget,
  worktree: z.object({ path: z.string(), branch: z.string(), base: z.string() }),
  /** Why its prompt could not be sent. */
  error: z.string().optional(),
  test: TestResult.optional(),
  archived: z.boolean().optional(),
});
export type CompareMember = z.infer<typeof CompareMember>;

export const CompareGroup = z.object({
  id: z.string(),
  createdAt: z.number(),
  createdBy: PersonRef.optional(),
  prompt: z.string(),
  testCommand: z.string().optional(),
  base: z.string(),
  members: z.array(CompareMember),
  kept: z
    .object({ sessionId: z.string(), how: z.enum(["merge", "continue"]), commit: z.string().optional() })
    .optional(),
});
export type CompareGroup = z.infer<typeof CompareGroup>;

export interface ChangedFile {
  path: string;
  status: "added" | "modified" | "deleted" | "renamed";
}

/** `GET /api/compare/:id`: the group with each session's live state. */
export interface CompareView extends CompareGroup {
  columns: {
    backendId: string;
    sessionId: string;
    backendLabel: string;
    title: string;
    status: z.infer<typeof SessionStatus> | "gone";
    /** The newest assistant reply's text, condensed. */
    reply: string;
    startedAt: number;
    endedAt?: number;
    tokens?: { input: number; output: number };
    costUsd?: number;
    files: ChangedFile[];
  }[];
}

export interface CompareDiffColumn {
  sessionId: string;
  /** A unified diff of the file against the base (empty: unchanged there). */
  patch: string;
  additions: number;
  deletions: number;
}
