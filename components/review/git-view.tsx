"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { GitFile, GitFileStatus, GitState } from "@/lib/workspace-api";
import { ApiClientError, apiGet, apiSend, sessionPath } from "@/lib/client/api-client";
import { useRoleReason } from "@/lib/hooks/use-me";
import { cx } from "../ui/cx";
import { Spinner } from "../ui/spinner";

const LETTER: Record<GitFileStatus, { letter: string; tone: string; label: string }> = {
  added: { letter: "A", tone: "text-ok", label: "added" },
  modified: { letter: "M", tone: "text-warn", label: "modified" },
  deleted: { letter: "D", tone: "text-err", label: "deleted" },
  renamed: { letter: "R", tone: "text-accent", label: "renamed" },
  untracked: { letter: "U", tone: "text-ok", label: "untracked" },
};

const btn =
  "inline-flex h-7 items-center gap-1.5 rounded-md border border-border px-2.5 text-[12px] font-medium text-fg hover:bg-raised disabled:opacity-45";

type Outcome = { ok: true; text: string } | { ok: false; text: string; files?: string[] };

/**
 * The Git panel (docs/workspace.md): the session directory's branch and changed files, stage and
 * unstage, a commit message, Commit, Push, and Merge into the branch a worktree was made from.
 * Everything goes through the console's git routes; what git refuses is shown in git's words.
 */
export function GitView({ backendId, sessionId }: { backendId: string; sessionId: string }) {
  const base = `${sessionPath(backendId, sessionId)}/git`;
  const qc = useQueryClient();
  const key = ["git", backendId, sessionId];
  const state = useQuery({ queryKey: key, queryFn: () => apiGet<GitState>(base), refetchInterval: 4000 });
  const roleReason = useRoleReason("operate");
  const [message, setMessage] = useState("");
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const run = useMutation({
    mutationFn: async (a: { op: "stage" | "unstage" | "commit" | "push" | "merge"; body?: unknown }) =>
      apiSend<Record<string, unknown>>("POST", `${base}/${a.op}`, a.body ?? {}),
    onSuccess: (res, a) => {
      if (a.op === "stage" || a.op === "unstage") {
        qc.setQueryData(key, res);
        setOutcome(null);
        return;
      }
      if (a.op === "commit") {
        setMessage("");
        setOutcome({ ok: true, text: `Committed ${String(res.commit).slice(0, 8)}` });
      } else if (a.op === "push")
        setOutcome({ ok: true, text: `Pushed ${String(res.commit).slice(0, 8)} to ${res.remote}/${res.branch}` });
      else setOutcome({ ok: true, text: `Merged into ${res.into} (${String(res.commit).slice(0, 8)})` });
      void qc.invalidateQueries({ queryKey: key });
    },
    onError: (err) => {
      const files =
        err instanceof ApiClientError && Array.isArray((err.details as { files?: unknown } | undefined)?.files)
          ? ((err.details as { files: string[] }).files ?? [])
          : undefined;
      setOutcome({ ok: false, text: err instanceof Error ? err.message : "git failed", ...(files ? { files } : {}) });
    },
  });

  if (state.isPending)
    return (
      <div className="grid flex-1 place-items-center text-faint" data-testid="git-panel" aria-busy="true">
        <Spinner />
      </div>
    );
  if (state.isError)
    return (
      <div className="grid flex-1 place-items-center p-6 text-center text-[12.5px] text-muted" data-testid="git-panel">
        {state.error instanceof Error ? state.error.message : "Could not read the session's git state"}
      </div>
    );

  const g = state.data;
  const staged = g.files.filter((f) => f.staged);
  const changes = g.files.filter((f) => !f.staged);
  const busy = run.isPending;
  const commitReason =
    roleReason ??
    (staged.length === 0
      ? "Stage the files to commit first"
      : message.trim() === ""
        ? "Write a commit message"
        : undefined);
  const toggle = (f: GitFile) => run.mutate({ op: f.staged ? "unstage" : "stage", body: { paths: [f.path] } });

  return (
    <div className="flex min-h-0 flex-1 flex-col" data-testid="git-panel">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-border px-3 py-2 text-[12px]">
        <span className="font-mono text-fg" data-testid="git-branch">
          {g.branch ?? "detached HEAD"}
        </span>
        {g.worktree ? (
          <span className="text-faint" title={g.worktree.path}>
            worktree from <span className="font-mono">{g.worktree.base.slice(0, 8)}</span>
          </span>
        ) : null}
        {g.upstream ? (
          <span className="font-mono text-faint" title={`Upstream ${g.upstream}`} data-testid="git-ahead-behind">
            ↑{g.ahead} ↓{g.behind}
          </span>
        ) : (
          <span className="text-faint">not pushed yet</span>
        )}
        <span className="ml-auto flex items-center gap-1.5">
          {busy ? <Spinner /> : null}
          <button
            type="button"
            className={btn}
            disabled={busy || !!roleReason || !g.head}
            title={roleReason ?? "Push this branch to its upstream, else origin"}
            onClick={() => run.mutate({ op: "push" })}
            data-testid="git-push"
          >
            Push
          </button>
          {g.worktree ? (
            <button
              type="button"
              className={btn}
              disabled={busy || !!roleReason}
              title={
                roleReason ?? "Merge this worktree's branch into the branch it was made from, in the main checkout"
              }
              onClick={() => run.mutate({ op: "merge" })}
              data-testid="git-merge"
            >
              Merge
            </button>
          ) : null}
        </span>
      </div>
      {outcome ? (
        <div
          role={outcome.ok ? "status" : "alert"}
          data-testid="git-outcome"
          data-ok={outcome.ok}
          className={cx("border-b border-border px-3 py-1.5 text-[12px]", outcome.ok ? "text-ok" : "text-err")}
        >
          <p className="whitespace-pre-wrap break-words">{outcome.text}</p>
          {!outcome.ok && outcome.files?.length ? (
            <ul className="mt-1 font-mono text-[11.5px]">
              {outcome.files.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <div className="min-h-0 flex-1 overflow-y-auto">
        <FileGroup
          title="Staged"
          files={staged}
          busy={busy}
          reason={roleReason}
          onToggle={toggle}
          all={
            staged.length ? () => run.mutate({ op: "unstage", body: { paths: staged.map((f) => f.path) } }) : undefined
          }
          allLabel="Unstage all"
        />
        <FileGroup
          title="Changes"
          files={changes}
          busy={busy}
          reason={roleReason}
          onToggle={toggle}
          all={
            changes.length ? () => run.mutate({ op: "stage", body: { paths: changes.map((f) => f.path) } }) : undefined
          }
          allLabel="Stage all"
        />
        {g.files.length === 0 ? (
          <p className="px-3 py-6 text-center text-[12.5px] text-faint" data-testid="git-clean">
            Nothing changed in this directory since the last commit.
          </p>
        ) : null}
      </div>
      <form
        className="shrink-0 border-t border-border p-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (!commitReason && !busy) run.mutate({ op: "commit", body: { message } });
        }}
      >
        <textarea
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
              e.preventDefault();
              if (!commitReason && !busy) run.mutate({ op: "commit", body: { message } });
            }
          }}
          rows={3}
          maxLength={20_000}
          placeholder="Commit message (Ctrl+Enter commits)"
          aria-label="Commit message"
          data-testid="git-message"
          disabled={!!roleReason}
          className="block w-full resize-none rounded-md border border-border bg-sunken px-2.5 py-1.5 text-[12.5px] text-fg outline-none placeholder:text-faint focus:border-accent"
        />
        <div className="mt-1.5 flex items-center gap-2">
          <span className="text-[11.5px] text-faint">
            {staged.length} staged{commitReason && !roleReason ? ` · ${commitReason}` : ""}
          </span>
          <button
            type="submit"
            className={cx(btn, "ml-auto border-accent bg-accent text-accent-fg hover:brightness-110")}
            disabled={busy || !!commitReason}
            title={commitReason ?? "Commit the staged files"}
            data-testid="git-commit"
          >
            Commit
          </button>
        </div>
      </form>
    </div>
  );
}

function FileGroup({
  title,
  files,
  busy,
  reason,
  onToggle,
  all,
  allLabel,
}: {
  title: string;
  files: GitFile[];
  busy: boolean;
  reason: string | undefined;
  onToggle(f: GitFile): void;
  all: (() => void) | undefined;
  allLabel: string;
}) {
  if (files.length === 0) return null;
  return (
    <section aria-label={title} data-testid={`git-group-${title.toLowerCase()}`}>
      <div className="flex h-7 items-center px-3 text-[11px] font-semibold uppercase tracking-wide text-faint">
        {title} <span className="ml-1.5 font-mono font-normal">{files.length}</span>
        {all ? (
          <button
            type="button"
            onClick={all}
            disabled={busy || !!reason}
            title={reason}
            className="ml-auto rounded px-1.5 text-[11px] font-medium normal-case tracking-normal text-muted hover:bg-raised hover:text-fg disabled:opacity-45"
          >
            {allLabel}
          </button>
        ) : null}
      </div>
      <ul>
        {files.map((f) => {
          const s = LETTER[f.status];
          return (
            <li key={`${f.staged}:${f.path}`}>
              <label
                className="flex h-7 cursor-pointer items-center gap-2 px-3 text-[12.5px] hover:bg-raised/60"
                data-testid="git-file"
                data-path={f.path}
                data-staged={f.staged}
                data-status={f.status}
              >
                <input
                  type="checkbox"
                  checked={f.staged}
                  disabled={busy || !!reason}
                  onChange={() => onToggle(f)}
                  aria-label={`${f.staged ? "Unstage" : "Stage"} ${f.path}`}
                  className="accent-[var(--accent)]"
                />
                <span className={cx("w-3 font-mono text-[11px] font-semibold", s.tone)} title={s.label}>
                  {s.letter}
                </span>
                <span className="min-w-0 flex-1 truncate font-mono text-[12px] text-fg" title={f.path}>
                  {f.from ? `${f.from} → ` : ""}
                  {f.path}
                </span>
              </label>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
