"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { SearchStatus } from "@/lib/api";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { relativeTime } from "@/lib/format";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { Spinner } from "../ui/spinner";

/** Settings → Search: what the index holds per backend, the backfill's progress, and the tool-output setting. */
export function SearchSettings() {
  const live = useGlobalEvents();
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ["search-status"],
    queryFn: () => apiGet<SearchStatus>("/api/search/status"),
    refetchInterval: 3000,
  });
  const save = useMutation({
    mutationFn: (toolOutputs: boolean) => apiSend<SearchStatus>("PUT", "/api/search/settings", { toolOutputs }),
    onSuccess: (data) => qc.setQueryData(["search-status"], data),
  });
  const labels = new Map(live.backends.map((b) => [b.id, b.label]));
  const status = q.data;
  return (
    <div className="rounded-lg border border-border bg-panel" data-testid="search-settings">
      <ul className="divide-y divide-border">
        {(status?.backends ?? []).map((b) => (
          <li
            key={b.backendId}
            className="flex min-h-10 flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2 text-[12.5px]"
            data-testid="search-index-row"
            data-state={b.state}
          >
            <span className="min-w-0 flex-1 truncate font-medium text-fg">
              {labels.get(b.backendId) ?? b.backendId}
            </span>
            <span className="tabular-nums text-muted">
              {b.sessions.toLocaleString("en-US")} {b.sessions === 1 ? "session" : "sessions"} ·{" "}
              {b.messages.toLocaleString("en-US")} {b.messages === 1 ? "message" : "messages"}
            </span>
            <span className="flex w-[220px] items-center justify-end gap-1.5 text-faint phone:w-auto">
              {b.state === "indexing" ? (
                <>
                  <Spinner size={11} />
                  Reading history: {b.indexed} of {b.seen} looked at
                </>
              ) : b.state === "error" ? (
                <span className="truncate text-err" title={b.error}>
                  Last pass failed: {b.error}
                </span>
              ) : b.lastPassAt ? (
                `Up to date · ${relativeTime(b.lastPassAt)}`
              ) : (
                "Waiting for the backend"
              )}
            </span>
          </li>
        ))}
        {status && status.backends.length === 0 ? (
          <li className="px-4 py-3 text-[13px] text-faint">No backends to index.</li>
        ) : null}
        {!status ? (
          <li className="px-4 py-3 text-[13px] text-faint">{q.isError ? "Unavailable." : "Loading…"}</li>
        ) : null}
      </ul>
      <label className="flex items-start gap-2.5 border-t border-border px-4 py-2.5 text-[12.5px] text-muted">
        <input
          type="checkbox"
          className="mt-0.5"
          checked={status?.toolOutputs ?? true}
          disabled={!status || save.isPending}
          onChange={(e) => save.mutate(e.target.checked)}
          data-testid="search-tool-outputs"
        />
        <span>
          Index tool outputs (command output, file contents a tool read). Turning this off takes them out of the index;
          every session is read again.
        </span>
      </label>
      {save.isError ? (
        <p role="alert" className="px-4 pb-2 text-[12px] text-err">
          {save.error instanceof Error ? save.error.message : "Could not save the setting"}
        </p>
      ) : null}
    </div>
  );
}
