"use client";
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import type { SessionPage } from "@/lib/api";
import type { Backend, Session } from "@/lib/model";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { sessionKey } from "@/lib/client/global-store";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { baseName, relativeTime } from "@/lib/format";
import { cx } from "../ui/cx";
import { IconBranch, IconFolder } from "../ui/icons";
import { SessionStatusGlyph } from "./status-dot";
import { interruptAnchor, reportedStatus } from "@/lib/timeline/selectors";

function BackendDot({ backend }: { backend: Backend }) {
  const tone =
    backend.status === "ready" ? "bg-ok" : backend.status === "connecting" ? "bg-warn animate-pulse" : "bg-err";
  return (
    <span
      className={cx("size-1.5 shrink-0 rounded-full", tone)}
      title={`${backend.label}: ${backend.status}${backend.error ? ` — ${backend.error}` : ""}`}
    />
  );
}

/** Sessions per page of the sidebar's list. */
const SESSION_PAGE = 100;

/** One backend's sessions in the sidebar: paged, filtered by the search, the open one marked. */
export function BackendSessions({
  backend,
  search,
  activeKey,
}: {
  backend: Backend;
  search: string;
  activeKey: string | undefined;
}) {
  const live = useGlobalEvents();
  const router = useRouter();
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string>();
  // Pages of the backend's list, newest first; "Show more" follows the cursor.
  const q = useInfiniteQuery({
    queryKey: ["sessions", backend.id, search],
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: String(SESSION_PAGE) });
      if (search) params.set("search", search);
      if (pageParam) params.set("cursor", pageParam);
      return apiGet<SessionPage>(`/api/backends/${encodeURIComponent(backend.id)}/sessions?${params}`);
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    enabled: backend.status === "ready",
    refetchInterval: 30_000,
  });

  // Merge the list with live updates (new sessions, titles, statuses, removals).
  const sessions = useMemo(() => {
    const byId = new Map<string, Session>();
    for (const page of q.data?.pages ?? []) for (const s of page.items) byId.set(s.id, s);
    for (const [k, s] of Object.entries(live.sessions)) {
      if (s.backendId !== backend.id || s.parentId) continue;
      if (!byId.has(s.id) && search && !s.title.toLowerCase().includes(search.toLowerCase())) continue;
      if (k && (!byId.has(s.id) || byId.get(s.id)!.updatedAt <= s.updatedAt))
        byId.set(s.id, { ...byId.get(s.id), ...s });
    }
    const waiting = new Set(live.interrupts.filter((i) => i.backendId === backend.id).map(interruptAnchor));
    return [...byId.values()]
      .filter((s) => !live.removed[sessionKey(backend.id, s.id)])
      .map((s) => {
        if (waiting.has(s.id)) return { ...s, status: "waiting" as const };
        const st = live.statuses[sessionKey(backend.id, s.id)];
        return st ? { ...s, status: reportedStatus(st.status) } : s;
      })
      .sort((a, b) => b.updatedAt - a.updatedAt);
  }, [q.data, live.sessions, live.removed, live.statuses, live.interrupts, backend.id, search]);

  const groups = useMemo(() => {
    const m = new Map<string, Session[]>();
    for (const s of sessions) {
      const d = s.directory ?? "";
      m.set(d, [...(m.get(d) ?? []), s]);
    }
    return [...m.entries()];
  }, [sessions]);

  const create = async (opts: { worktree?: boolean } = {}) => {
    setCreating(true);
    setCreateError(undefined);
    try {
      const s = await apiSend<Session>(
        "POST",
        `/api/backends/${encodeURIComponent(backend.id)}/sessions`,
        opts.worktree ? { worktree: true } : {},
      );
      await qc.invalidateQueries({ queryKey: ["sessions", backend.id] });
      router.push(`/sessions/${encodeURIComponent(backend.id)}/${encodeURIComponent(s.id)}`);
    } catch (err) {
      setCreateError(err instanceof Error ? err.message : "Could not create a session");
    } finally {
      setCreating(false);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the key handler is rebound when the backend changes
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && (e.key === "n" || e.key === "N" || e.code === "KeyN")) {
        e.preventDefault();
        void create();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [backend.id]);

  return (
    <section className="mb-3" data-testid="backend-section" data-backend-id={backend.id}>
      <div className="flex h-7 items-center gap-2 px-3 text-[11px] font-semibold uppercase tracking-wide text-faint">
        <BackendDot backend={backend} />
        <h2 className="truncate">{backend.label}</h2>
        {backend.embedded && <span className="font-normal normal-case tracking-normal text-faint">embedded</span>}
        <button
          type="button"
          onClick={() => void create()}
          disabled={creating || backend.status !== "ready"}
          data-testid="new-session"
          title="New session (Alt+N)"
          aria-label={`New session on ${backend.label}`}
          className="ml-auto inline-flex h-5 items-center rounded px-1.5 text-[11px] font-medium normal-case tracking-normal text-muted hover:bg-raised hover:text-fg disabled:opacity-40 phone:h-8 phone:px-2.5 phone:text-[12px]"
        >
          + New
        </button>
        <button
          type="button"
          onClick={() => void create({ worktree: true })}
          disabled={creating || backend.status !== "ready"}
          data-testid="new-worktree-session"
          title="New session in a separate git worktree, on a branch of its own"
          aria-label={`New session in a separate worktree on ${backend.label}`}
          className="inline-flex h-5 items-center rounded px-1 text-muted hover:bg-raised hover:text-fg disabled:opacity-40 phone:h-8 phone:px-2"
        >
          <IconBranch size={12} />
        </button>
      </div>
      {createError && <p className="px-3 py-1 text-xs text-err">{createError}</p>}
      {backend.status !== "ready" && (
        <p className="px-3 py-1 text-xs text-muted">
          {backend.status === "connecting" ? "Connecting…" : (backend.error ?? "Backend is down")}
        </p>
      )}
      {q.isError && (
        <p className="px-3 py-1 text-xs text-err">
          {q.error instanceof Error ? q.error.message : "Could not list sessions"}
        </p>
      )}
      {q.isSuccess && sessions.length === 0 && (
        <p className="px-3 py-1 text-xs text-faint">{search ? "No matching sessions" : "No sessions yet"}</p>
      )}
      {groups.map(([dir, items]) => (
        <div key={dir} className="mt-1">
          {dir && (
            <div className="flex h-6 items-center gap-1.5 px-3 text-[11px] text-faint" title={dir}>
              <IconFolder className="size-3" />
              <span className="truncate">{baseName(dir)}</span>
            </div>
          )}
          <ul>
            {items.map((s) => {
              const k = sessionKey(backend.id, s.id);
              const active = k === activeKey;
              return (
                <li key={s.id}>
                  <Link
                    href={`/sessions/${encodeURIComponent(backend.id)}/${encodeURIComponent(s.id)}`}
                    data-testid="session-row"
                    data-session-id={s.id}
                    data-status={s.status}
                    aria-current={active ? "page" : undefined}
                    className={cx(
                      "group mx-1.5 flex h-8 items-center gap-2 rounded-md px-2 text-[13px] phone:h-[40px] phone:text-[14px]",
                      active ? "bg-raised text-fg" : "text-muted hover:bg-raised/60 hover:text-fg",
                    )}
                  >
                    <SessionStatusGlyph status={s.status} />
                    <span className="min-w-0 flex-1 truncate">{s.title}</span>
                    {s.forkedFrom ? <IconBranch size={11} className="shrink-0 text-faint" title="Forked" /> : null}
                    {s.updatedAt > 0 && (
                      <span className="shrink-0 text-[11px] tabular-nums text-faint">{relativeTime(s.updatedAt)}</span>
                    )}
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
      {q.hasNextPage ? (
        <button
          type="button"
          onClick={() => void q.fetchNextPage()}
          disabled={q.isFetchingNextPage}
          data-testid="sessions-more"
          className="mx-1.5 mt-1 flex h-7 w-[calc(100%-12px)] items-center rounded-md px-2 text-[12px] text-muted hover:bg-raised/60 hover:text-fg disabled:opacity-60"
        >
          {q.isFetchingNextPage ? "Loading…" : "Show more sessions"}
        </button>
      ) : null}
    </section>
  );
}
