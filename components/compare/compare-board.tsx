"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { CompareDiffColumn, CompareView } from "@/lib/compare-api";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { useRoleReason } from "@/lib/hooks/use-me";
import { DiffView } from "../code/diff-view";
import { SidebarToggle } from "../shell/shell";
import { cx } from "../ui/cx";
import dynamic from "next/dynamic";

// Loaded on demand: its modules shared with the session page (the live store, the composer's lists)
// then leave the session page's first chunks as they were (docs/performance.md, "JavaScript").
const CompareColumn = dynamic(() => import("./compare-column").then((m) => m.CompareColumn), {
  loading: () => <section className="min-h-[480px] bg-panel" aria-busy="true" />,
});

/**
 * The comparison (docs/compare.md): a column per session (compare-column.tsx) — status, its live
 * timeline condensed, duration, tokens and cost, the files it changed, its test result — then one
 * file's diff in every column side by side, and Keep on the best.
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
        <div className="grid gap-px bg-border" style={{ gridTemplateColumns: `repeat(${cols}, minmax(280px, 1fr))` }}>
          {g.columns.map((c) => (
            <CompareColumn
              key={c.sessionId}
              c={c}
              m={g.members.find((x) => x.sessionId === c.sessionId)!}
              kept={g.kept?.sessionId === c.sessionId}
              {...(g.kept?.commit ? { keptCommit: g.kept.commit } : {})}
              {...(g.kept
                ? { keepReason: "This comparison kept one already" }
                : roleReason
                  ? { keepReason: roleReason }
                  : keep.isPending
                    ? { keepReason: "Keeping…" }
                    : {})}
              onKeep={() => keep.mutate(c.sessionId)}
              file={file}
              onFile={setFile}
            />
          ))}
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
