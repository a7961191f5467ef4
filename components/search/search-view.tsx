"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import type { SearchPage } from "@/lib/api";
import { apiGet } from "@/lib/client/api-client";
import { relativeTime } from "@/lib/format";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { groupBySession, hitHref } from "@/lib/search";
import { SidebarToggle } from "../shell/shell";
import { IconSearch } from "../ui/icons";
import { Spinner } from "../ui/spinner";
import { Highlighted } from "./highlighted";

const PAGE = 30;

/** `/search?q=`: every session's messages searched (docs/search.md), hits grouped by session. */
export function SearchView({ initialQuery }: { initialQuery: string }) {
  const router = useRouter();
  const live = useGlobalEvents();
  const [query, setQuery] = useState(initialQuery);
  const [debounced, setDebounced] = useState(initialQuery.trim());
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const t = setTimeout(() => setDebounced(query.trim()), 200);
    return () => clearTimeout(t);
  }, [query]);
  // The address follows the query, so a search can be reloaded and shared with oneself.
  useEffect(() => {
    const url = debounced ? `/search?${new URLSearchParams({ q: debounced })}` : "/search";
    if (`${window.location.pathname}${window.location.search}` !== url) router.replace(url, { scroll: false });
  }, [debounced, router]);

  const q = useInfiniteQuery({
    queryKey: ["search", debounced],
    queryFn: ({ pageParam }) =>
      apiGet<SearchPage>(
        `/api/search?${new URLSearchParams({ q: debounced, limit: String(PAGE), ...(pageParam ? { cursor: pageParam } : {}) })}`,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    enabled: debounced !== "",
    staleTime: 5_000,
  });
  const groups = useMemo(() => groupBySession(q.data?.pages.flatMap((p) => p.items) ?? []), [q.data]);
  const labels = new Map(live.backends.map((b) => [b.id, b.label]));
  const count = groups.reduce((n, g) => n + g.hits.length, 0);

  return (
    <div className="flex h-full min-h-0 flex-col" data-testid="search-view">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border bg-panel px-4 phone:px-2.5">
        <SidebarToggle />
        <h1 className="text-[14px] font-semibold">Search</h1>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto w-full max-w-[860px] px-6 py-5 phone:px-3 phone:py-3">
          <form
            role="search"
            onSubmit={(e) => {
              e.preventDefault();
              setDebounced(query.trim());
            }}
            className="flex h-10 items-center gap-2.5 rounded-lg border border-border-strong bg-panel px-3 focus-within:border-accent"
          >
            <IconSearch className="size-4 shrink-0 text-faint" />
            <input
              ref={input}
              autoFocus
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder="Search every session's messages…"
              aria-label="Search every session's messages"
              spellCheck={false}
              maxLength={500}
              className="h-full min-w-0 flex-1 bg-transparent text-[14px] text-fg outline-none placeholder:text-faint phone:text-[16px]"
              data-testid="search-input"
            />
            {q.isFetching ? <Spinner size={13} /> : null}
          </form>
          <p className="mt-2 h-5 text-[12px] text-muted" aria-live="polite" data-testid="search-summary">
            {!debounced
              ? "Words from prompts, replies, reasoning and tool calls, in every backend's sessions."
              : q.isError
                ? "The search failed. Try again."
                : q.isSuccess
                  ? count
                    ? `${count}${q.hasNextPage ? "+" : ""} ${count === 1 ? "message" : "messages"} in ${groups.length} ${groups.length === 1 ? "session" : "sessions"}`
                    : "No message matches."
                  : ""}
          </p>
          <ol className="mt-2 space-y-3" data-testid="search-results">
            {groups.map((g) => (
              <li
                key={`${g.backendId}/${g.sessionId}`}
                className="rounded-lg border border-border bg-panel"
                data-testid="search-group"
                data-session-id={g.sessionId}
              >
                <div className="flex h-9 items-center gap-2 border-b border-border px-3">
                  <Link
                    href={`/sessions/${encodeURIComponent(g.backendId)}/${encodeURIComponent(g.sessionId)}`}
                    className="min-w-0 truncate text-[13px] font-semibold text-fg hover:underline"
                  >
                    {g.sessionTitle || "Untitled session"}
                  </Link>
                  {live.backends.length > 1 ? (
                    <span className="shrink-0 text-[11px] text-faint">{labels.get(g.backendId) ?? g.backendId}</span>
                  ) : null}
                </div>
                <ul className="divide-y divide-border">
                  {g.hits.map((h) => (
                    <li key={h.messageId}>
                      <Link
                        href={hitHref(h)}
                        className="flex gap-3 px-3 py-2 text-[12.5px] hover:bg-raised focus-visible:bg-raised"
                        data-testid="search-hit"
                        data-message-id={h.messageId}
                      >
                        <span className="w-[64px] shrink-0 pt-px text-[11px] capitalize text-faint">{h.role}</span>
                        <span className="min-w-0 flex-1 whitespace-pre-wrap break-words text-muted [overflow-wrap:anywhere]">
                          <Highlighted text={h.snippet} matches={h.matches} />
                        </span>
                        <span className="shrink-0 pt-px text-[11px] text-faint">{relativeTime(h.createdAt)}</span>
                      </Link>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
          {q.hasNextPage ? (
            <button
              type="button"
              onClick={() => void q.fetchNextPage()}
              disabled={q.isFetchingNextPage}
              className="mt-3 h-8 rounded-md border border-border px-3 text-[12.5px] text-muted hover:text-fg disabled:opacity-50"
              data-testid="search-more"
            >
              {q.isFetchingNextPage ? "Loading…" : "More results"}
            </button>
          ) : null}
        </div>
      </div>
    </div>
  );
}
