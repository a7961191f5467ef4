"use client";
import { useQuery } from "@tanstack/react-query";
import type { GitState } from "@/lib/workspace-api";
import { apiGet, sessionPath } from "@/lib/client/api-client";

export interface WorktreeChoice {
  remove: boolean;
  deleteBranch: boolean;
}

/**
 * In the delete dialog of a session that has its own worktree: whether the worktree folder goes
 * too, and its branch. The branch is kept unless ticked; a worktree with uncommitted changes is
 * refused by git, and then the session stays.
 */
export function DeleteWorktreeChoice({
  backendId,
  sessionId,
  value,
  onChange,
}: {
  backendId: string;
  sessionId: string;
  value: WorktreeChoice;
  onChange(v: WorktreeChoice): void;
}) {
  const git = useQuery({
    queryKey: ["git", backendId, sessionId],
    queryFn: () => apiGet<GitState>(`${sessionPath(backendId, sessionId)}/git`),
    retry: false,
  });
  const wt = git.data?.worktree;
  if (!wt) return null;
  return (
    <fieldset className="mt-3 space-y-1.5 text-[12.5px]" data-testid="delete-worktree">
      <legend className="mb-1 text-muted">
        It has its own worktree on <span className="font-mono">{wt.branch}</span>.
      </legend>
      <label className="flex items-center gap-2">
        <input
          type="checkbox"
          checked={value.remove}
          onChange={(e) => onChange({ remove: e.target.checked, deleteBranch: e.target.checked && value.deleteBranch })}
          data-testid="delete-worktree-remove"
        />
        Remove the worktree folder
      </label>
      <label className="flex items-center gap-2 pl-5 aria-disabled:opacity-45" aria-disabled={!value.remove}>
        <input
          type="checkbox"
          checked={value.deleteBranch}
          disabled={!value.remove}
          onChange={(e) => onChange({ ...value, deleteBranch: e.target.checked })}
          data-testid="delete-worktree-branch"
        />
        Also delete the branch (its commits are lost unless merged or pushed)
      </label>
    </fieldset>
  );
}
