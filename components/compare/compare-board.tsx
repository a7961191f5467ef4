"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { CompareDiffColumn, CompareView } from "@/lib/compare-api";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { useRoleReason } from "@/lib/hooks/use-me";
import { DiffView } from "../code/diff-view";
import { SidebarToggle } from "../shell/shell";
import { SessionStatusGlyph } from "../shell/status-dot";
import { cx } from "../ui/cx";

const seconds = (ms: number) =>
  ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

/**
 * The comparison (docs/compare.md): a column per session — status, its reply condensed, duration,
 * tokens and cost, the files it changed, its test result — then one file's diff in every column
 * side by side, and Keep on the best.
 */
export function CompareBoard({ id }: { id: string }) {
  const base = `/api/compare/${encodeURIComponent(id)}`;
  const qc = useQueryClient();
  const roleReason = useRoleReason("operate");
  const view = useQuery({
    queryKey: ["compare", id],
    queryFn: () => apiGet<CompareView>(base),
    refetchInterval: (q) =>
      q.state.data?.columns.some((c) => c.status === "busy" || c.status === "retry" || c.status === "waiting") ||
      q.state.data?.members.some((m) => m.test?.state === "running")
        ? 1500
        : 8000,
  });
  const [file, setFile] = useState<string | null>(null);
  const diffs = useQuery({
    queryKey: ["compare-diff", id, file],
    queryFn: () => apiGet<{ items: CompareDiffColumn[] }>(`${base}/diff?path=${encodeURIComponent(file!)}`),
    enabled: file !== null,
  });
  const keep = useMutation({
    mutationFn: (sessionId: string) => apiSend("POST", `${base}/keep`, { sessionId, how: "merge" }),
    onSettled: () => void qc.invalidateQueries({ queryKey: ["compare", id] }),
  });

  if (view.isPending) return <div className="p-6 text-[12.5px] text-faint">Loading the comparison…</div>;
  if (view.isError)
    return (
      <div className="p-6 text-[12.5px] text-err" role="alert">
        {view.error instanceof Error ? view.error.message : "Could not load the comparison"}
      </div>
    );
  const g = view.data;
  const allFiles = [...new Set(g.columns.flatMap((c) => c.files.map((f) => f.path)))].sort();
  const cols = g.columns.length;

  return (
    <div className="flex h-full min-h-0 flex-col" data-testid="compare-board">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border bg-panel px-4 phone:px-2.5">
        <SidebarToggle />
        <div className="min-w-0 flex-1">
          <h1 className="truncate text-[15px] font-semibold text-fg" title={g.prompt}>
            {g.prompt.split("\n")[0]}
          </h1>
          <p className="truncate text-[11.5px] text-faint">
            {cols} agents from <span className="font-mono">{g.base.slice(0, 8)}</span>
            {g.testCommand ? (
              <>
                {" "}
                · tests: <span className="font-mono">{g.testCommand}</span>
              </>
            ) : null}
            {g.createdBy ? ` · by ${g.createdBy.name}` : ""}
          </p>
        </div>
        {keep.error ? (
          <span role="alert" className="max-w-[40%] truncate text-[12px] text-err" title={keep.error.message}>
            {keep.error.message}
          </span>
        ) : null}
      </header>
      <div className="min-h-0 flex-1 overflow-auto">
        <div className="grid gap-px bg-border" style={{ gridTemplateColumns: `repeat(${cols}, minmax(260px, 1fr))` }}>
          {g.columns.map((c) => {
            const m = g.members.find((x) => x.sessionId === c.sessionId)!;
            const kept = g.kept?.sessionId === c.sessionId;
            return (
              <section
                key={c.sessionId}
                className={cx("flex min-w-0 flex-col gap-2 bg-panel p-3", m.archived && "opacity-60")}
                data-testid="compare-column"
                data-session-id={c.sessionId}
                data-status={c.status}
                aria-label={c.backendLabel}
              >
                <div className="flex items-center gap-2">
                  {c.status !== "gone" ? <SessionStatusGlyph status={c.status} /> : null}
                  <span className="truncate text-[13px] font-semibold text-fg">{c.backendLabel}</span>
                  {m.target.model ? (
                    <span className="truncate font-mono text-[11px] text-faint">{m.target.model.id}</span>
                  ) : null}
                  <span className="ml-auto text-[11.5px] text-faint">
                    {c.endedAt ? seconds(c.endedAt - c.startedAt) : c.status}
                  </span>
                </div>
                <div className="flex flex-wrap gap-x-3 text-[11.5px] text-faint">
                  {c.tokens ? (
                    <span>
                      {c.tokens.input.toLocaleString("en-US")} in · {c.tokens.output.toLocaleString("en-US")} out
                    </span>
                  ) : null}
                  {c.costUsd ? <span>${c.costUsd.toFixed(4)}</span> : null}
                  <span className="font-mono" title={m.worktree.path}>
                    {m.worktree.branch}
                  </span>
                </div>
                {m.error ? <p className="text-[12px] text-err">{m.error}</p> : null}
                <p
                  className="line-clamp-[8] whitespace-pre-wrap break-words text-[12.5px] text-muted"
                  data-testid="compare-reply"
                >
                  {c.reply || (c.status === "busy" ? "Working…" : "No reply yet.")}
                </p>
                <div>
                  <h3 className="text-[11px] font-semibold uppercase tracking-wide text-faint">
                    Changed {c.files.length ? c.files.length : ""}
                  </h3>
                  <ul className="mt-1 space-y-0.5">
                    {c.files.map((f) => (
                      <li key={f.path}>
                        <button
                          type="button"
                          onClick={() => setFile(f.path)}
                          className={cx(
                            "w-full truncate text-left font-mono text-[12px] hover:text-fg",
                            file === f.path ? "text-accent" : "text-muted",
                          )}
                          data-testid="compare-file"
                          data-path={f.path}
                        >
                          {f.status === "added" ? "A " : f.status === "deleted" ? "D " : "M "}
                          {f.path}
                        </button>
                      </li>
                    ))}
                    {c.files.length === 0 ? <li className="text-[12px] text-faint">none</li> : null}
                  </ul>
                </div>
                {m.test ? (
                  <details className="text-[12px]" data-testid="compare-test" data-exit={m.test.exitCode ?? ""}>
                    <summary
                      className={cx(
                        "cursor-pointer",
                        m.test.state === "running" ? "text-muted" : m.test.exitCode === 0 ? "text-ok" : "text-err",
                      )}
                    >
                      {m.test.state === "running"
                        ? "Tests running…"
                        : m.test.exitCode === 0
                          ? "Tests passed"
                          : `Tests failed (exit ${m.test.exitCode ?? "?"})`}
                    </summary>
                    <pre className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap rounded bg-sunken p-2 font-mono text-[11.5px] text-muted">
                      {m.test.output || "(no output)"}
                    </pre>
                  </details>
                ) : null}
                <div className="mt-auto flex items-center gap-2 pt-1">
                  <Link
                    href={`/sessions/${encodeURIComponent(c.backendId)}/${encodeURIComponent(c.sessionId)}`}
                    className="rounded-md border border-border px-2.5 py-1 text-[12px] text-muted hover:bg-raised hover:text-fg"
                  >
                    Open
                  </Link>
                  {kept ? (
                    <span className="text-[12px] font-medium text-ok" data-testid="compare-kept">
                      Kept{g.kept?.commit ? ` · merged ${g.kept.commit.slice(0, 8)}` : ""}
                    </span>
                  ) : m.archived ? (
                    <span className="text-[12px] text-faint">Archived (branch kept)</span>
                  ) : (
                    <button
                      type="button"
                      disabled={!!g.kept || !!roleReason || keep.isPending || c.status === "busy"}
                      title={roleReason ?? "Merge this one's branch into the base; archive the others"}
                      onClick={() => keep.mutate(c.sessionId)}
                      className="rounded-md bg-accent px-2.5 py-1 text-[12px] font-medium text-accent-fg hover:brightness-110 disabled:opacity-45"
                      data-testid="compare-keep"
                    >
                      Keep
                    </button>
                  )}
                </div>
              </section>
            );
          })}
        </div>
        {allFiles.length ? (
          <div className="border-t border-border p-3">
            <div className="mb-2 flex flex-wrap items-center gap-1.5 text-[12px]">
              <span className="text-faint">Compare a file:</span>
              {allFiles.map((p) => (
                <button
                  key={p}
                  type="button"
                  onClick={() => setFile(p)}
                  className={cx(
                    "rounded border px-2 py-0.5 font-mono",
                    file === p ? "border-accent text-accent" : "border-border text-muted hover:text-fg",
                  )}
                >
                  {p}
                </button>
              ))}
            </div>
            {file && diffs.data ? (
              <div
                className="grid gap-2"
                style={{ gridTemplateColumns: `repeat(${cols}, minmax(260px, 1fr))` }}
                data-testid="compare-diffs"
              >
                {diffs.data.items.map((d) => (
                  <div key={d.sessionId} className="min-w-0" data-testid="compare-diff" data-session-id={d.sessionId}>
                    <DiffView patch={d.patch} path={file} header emptyText="Not changed here" maxLines={80} />
                  </div>
                ))}
              </div>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}
