"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { apiGet } from "@/lib/client/api-client";
import { AUDIT_ACTIONS, type AuditEntry } from "@/lib/people";

const PAGE = 100;

function auditPath(filter: { actor: string; action: string; sessionId: string }, before?: number, limit = PAGE) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (before !== undefined) q.set("before", String(before));
  if (filter.actor.trim()) q.set("actor", filter.actor.trim());
  if (filter.action) q.set("action", filter.action);
  if (filter.sessionId.trim()) q.set("sessionId", filter.sessionId.trim());
  return `/api/audit?${q}`;
}

/** Every entry matching the filter, page by page, as JSON Lines (one entry per line). */
async function exportJsonLines(filter: { actor: string; action: string; sessionId: string }) {
  const lines: string[] = [];
  let before: number | undefined;
  for (;;) {
    const { items } = await apiGet<{ items: AuditEntry[] }>(auditPath(filter, before, 1000));
    for (const e of items) lines.push(JSON.stringify(e));
    if (items.length < 1000) break;
    before = items[items.length - 1]?.id;
  }
  const url = URL.createObjectURL(new Blob([`${lines.join("\n")}\n`], { type: "application/x-ndjson" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = "switchboard-audit.jsonl";
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function detailText(e: AuditEntry): string {
  const d = e.detail ?? {};
  const parts: string[] = [];
  for (const [k, v] of Object.entries(d)) {
    const text = typeof v === "string" ? v : JSON.stringify(v);
    parts.push(`${k}: ${text.length > 120 ? `${text.slice(0, 120)}…` : text}`);
  }
  return parts.join(" · ");
}

/** The audit log: filters, pages of entries (newest first), and a JSON Lines export. Text only, never HTML. */
export function AuditLog() {
  const [filter, setFilter] = useState({ actor: "", action: "", sessionId: "" });
  const [exporting, setExporting] = useState(false);
  const q = useInfiniteQuery({
    queryKey: ["audit", filter],
    queryFn: ({ pageParam }) => apiGet<{ items: AuditEntry[] }>(auditPath(filter, pageParam)),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => (last.items.length < PAGE ? undefined : last.items[last.items.length - 1]?.id),
  });
  const items = q.data?.pages.flatMap((p) => p.items) ?? [];
  const input =
    "h-8 rounded-md border border-border bg-sunken px-2 text-[12.5px] text-fg outline-none focus:border-accent";
  return (
    <div data-testid="audit-log">
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <input
          className={input}
          placeholder="Who (id or name)"
          aria-label="Filter by who"
          value={filter.actor}
          onChange={(e) => setFilter({ ...filter, actor: e.target.value })}
          data-testid="audit-filter-actor"
        />
        <select
          className={input}
          aria-label="Filter by action"
          value={filter.action}
          onChange={(e) => setFilter({ ...filter, action: e.target.value })}
          data-testid="audit-filter-action"
        >
          <option value="">Every action</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
        <input
          className={input}
          placeholder="Session id"
          aria-label="Filter by session"
          value={filter.sessionId}
          onChange={(e) => setFilter({ ...filter, sessionId: e.target.value })}
          data-testid="audit-filter-session"
        />
        <button
          type="button"
          disabled={exporting}
          onClick={() => {
            setExporting(true);
            void exportJsonLines(filter).finally(() => setExporting(false));
          }}
          className="h-8 rounded-md border border-border px-3 text-[12.5px] text-fg hover:bg-raised disabled:opacity-50"
          data-testid="audit-export"
        >
          {exporting ? "Exporting…" : "Export JSON Lines"}
        </button>
      </div>
      {q.error ? (
        <p className="text-[12.5px] text-err" role="alert">
          {q.error instanceof Error ? q.error.message : "Could not read the audit log"}
        </p>
      ) : null}
      <ul className="divide-y divide-border rounded-lg border border-border bg-panel" data-testid="audit-list">
        {items.map((e) => (
          <li
            key={e.id}
            className="grid grid-cols-[9rem_8rem_1fr] gap-2 px-3 py-2 text-[12.5px]"
            data-testid="audit-entry"
          >
            <time className="text-faint" dateTime={new Date(e.at).toISOString()}>
              {new Date(e.at).toLocaleString()}
            </time>
            <span className="truncate text-fg" title={`${e.actor.id} (${e.actor.via})`} data-testid="audit-actor">
              {e.actor.name}
            </span>
            <span className="min-w-0">
              <span className="font-mono text-accent" data-testid="audit-action">
                {e.action}
              </span>
              {e.sessionId ? <span className="ml-2 font-mono text-faint">{e.sessionId}</span> : null}
              {e.detail ? <span className="ml-2 break-words text-muted">{detailText(e)}</span> : null}
            </span>
          </li>
        ))}
        {!q.isLoading && items.length === 0 && <li className="px-3 py-2 text-[12.5px] text-faint">No entries.</li>}
        {q.isLoading && <li className="px-3 py-2 text-[12.5px] text-faint">Loading…</li>}
      </ul>
      {q.hasNextPage && (
        <button
          type="button"
          onClick={() => void q.fetchNextPage()}
          disabled={q.isFetchingNextPage}
          className="mt-2 h-8 rounded-md border border-border px-3 text-[12.5px] text-fg hover:bg-raised disabled:opacity-50"
        >
          {q.isFetchingNextPage ? "Loading…" : "Older entries"}
        </button>
      )}
    </div>
  );
}
