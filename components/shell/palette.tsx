"use client";
import { useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { SearchHit, SearchPage, SessionPage } from "@/lib/api";
import type { Session } from "@/lib/model";
import { apiGet, apiSend } from "@/lib/client/api-client";
import { useGlobalEvents } from "@/lib/hooks/use-global-events";
import { useTheme } from "@/lib/hooks/use-theme";
import { relativeTime } from "@/lib/format";
import { hitHref } from "@/lib/search";
import { Highlighted } from "../search/highlighted";
import { cx } from "../ui/cx";
import { IconSearch } from "../ui/icons";
import { Modal } from "../ui/modal";
import { setOverlay, useRegisteredCommands, type Command } from "./commands";
import { SessionStatusGlyph } from "./status-dot";

const sessionHref = (backendId: string, id: string) =>
  `/sessions/${encodeURIComponent(backendId)}/${encodeURIComponent(id)}`;

/** Every word of the query appears in the text (case-insensitive). */
export function matches(query: string, text: string): boolean {
  const t = text.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => t.includes(w));
}

interface Item {
  id: string;
  group: string;
  label: string;
  detail?: string;
  session?: Session;
  /** A message found by the content search (its label is the snippet). */
  hit?: SearchHit;
  shortcut?: string;
  disabledReason?: string;
  run(): void;
}

export function Palette({ onClose }: { onClose(): void }) {
  const live = useGlobalEvents();
  const router = useRouter();
  const qc = useQueryClient();
  const [theme, setTheme] = useTheme();
  const registered = useRegisteredCommands();
  const [query, setQuery] = useState("");
  const [debounced, setDebounced] = useState("");
  const [active, setActive] = useState(0);
  const [error, setError] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();

  useEffect(() => {
    const t = setTimeout(() => setDebounced(query.trim()), 150);
    return () => clearTimeout(t);
  }, [query]);

  const ready = live.backends.filter((b) => b.status === "ready");
  // Sessions of every backend: each backend's own search (titles), newest first.
  const lists = useQueries({
    queries: ready.map((b) => ({
      queryKey: ["palette-sessions", b.id, debounced],
      queryFn: () =>
        apiGet<SessionPage>(
          `/api/backends/${encodeURIComponent(b.id)}/sessions?${new URLSearchParams({ limit: "8", ...(debounced ? { search: debounced } : {}) })}`,
        ),
      staleTime: 5_000,
    })),
  });
  // Every session's messages (the console's search index), as the user types.
  const content = useQuery({
    queryKey: ["palette-search", debounced],
    queryFn: () => apiGet<SearchPage>(`/api/search?${new URLSearchParams({ q: debounced, limit: "6" })}`),
    enabled: debounced.length > 1,
    staleTime: 5_000,
  });
  const loading = lists.some((l) => l.isFetching) || content.isFetching;

  const go = (href: string) => {
    onClose();
    router.push(href);
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt when the commands' inputs change; router and query client are stable
  const commands = useMemo<Command[]>(() => {
    const out: Command[] = [...registered];
    for (const b of live.backends) {
      out.push({
        id: `new:${b.id}`,
        group: "Actions",
        label: live.backends.length > 1 ? `New session on ${b.label}` : "New session",
        keywords: `create start ${b.label} ${b.kind}`,
        ...(live.backends.length === 1 ? { shortcut: "Alt+N" } : {}),
        ...(b.status !== "ready" ? { disabledReason: `${b.label} is ${b.status}` } : {}),
        run: () => {
          setError(undefined);
          apiSend<Session>("POST", `/api/backends/${encodeURIComponent(b.id)}/sessions`, {}).then(
            (s) => {
              void qc.invalidateQueries({ queryKey: ["sessions", b.id] });
              go(sessionHref(b.id, s.id));
            },
            (err: unknown) => setError(err instanceof Error ? err.message : "Could not create a session"),
          );
        },
      });
    }
    out.push(
      {
        id: "compare",
        group: "Actions",
        label: "Compare agents…",
        keywords: "compare agents models side by side best of n versions worktrees",
        run: () => go("/compare"),
      },
      {
        id: "theme",
        group: "Actions",
        label: theme === "dark" ? "Switch to the light theme" : "Switch to the dark theme",
        keywords: "theme dark light appearance",
        run: () => setTheme(),
      },
      {
        id: "settings",
        group: "Go to",
        label: "Settings",
        keywords: "backends preferences",
        run: () => go("/settings"),
      },
      { id: "shares", group: "Go to", label: "Shares", keywords: "links revoke", run: () => go("/settings/shares") },
      { id: "home", group: "Go to", label: "Home", keywords: "sessions overview", run: () => go("/") },
      {
        id: "help",
        group: "Go to",
        label: "Keyboard shortcuts",
        keywords: "help keys",
        shortcut: "?",
        run: () => setOverlay("help"),
      },
    );
    return out;
  }, [registered, live.backends, theme]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on when each session list last changed
  const items = useMemo<Item[]>(() => {
    const sessions: Item[] = [];
    const multi = ready.length > 1;
    lists.forEach((l, i) => {
      const b = ready[i];
      if (!b) return;
      for (const s of l.data?.items ?? []) {
        if (s.parentId) continue;
        sessions.push({
          id: `session:${b.id}/${s.id}`,
          group: "Sessions",
          label: s.title,
          detail: [multi ? b.label : "", relativeTime(s.updatedAt)].filter(Boolean).join(" · "),
          session: s,
          run: () => go(sessionHref(b.id, s.id)),
        });
      }
    });
    sessions.sort((a, b) => (b.session?.updatedAt ?? 0) - (a.session?.updatedAt ?? 0));
    const q = query.trim();
    const cmds = commands
      .filter((c) => !q || matches(q, `${c.label} ${c.keywords ?? ""}`))
      .map<Item>((c) => ({ ...c }));
    const found: Item[] = q
      ? [
          ...(content.data?.items ?? []).map<Item>((h) => ({
            id: `hit:${h.backendId}/${h.sessionId}/${h.messageId}`,
            group: "In messages",
            label: h.snippet,
            detail: [h.sessionTitle, relativeTime(h.createdAt)].filter(Boolean).join(" · "),
            hit: h,
            run: () => go(hitHref(h)),
          })),
          {
            id: "search-all",
            group: "In messages",
            label: `Search all messages for “${q}”`,
            run: () => go(`/search?${new URLSearchParams({ q })}`),
          },
        ]
      : [];
    // Actions first while nothing is typed; once something is typed, sessions by title, then the
    // actions it names (typing an action's name picks it), then the messages it finds.
    return q ? [...sessions.slice(0, 12), ...cmds, ...found] : [...cmds, ...sessions.slice(0, 8)];
  }, [lists.map((l) => l.dataUpdatedAt).join(","), content.dataUpdatedAt, commands, query]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query or result count resets the selection
  useEffect(() => setActive(0), [query, items.length]);
  const current = items[Math.min(active, items.length - 1)];

  const runItem = (it: Item | undefined) => {
    if (!it || it.disabledReason) return;
    // A new session closes the palette once it exists (or shows why it could not be created).
    if (!it.id.startsWith("new:")) onClose();
    it.run();
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((a) => (items.length ? (a + step + items.length) % items.length : 0));
    } else if (e.key === "Home" && e.ctrlKey) {
      setActive(0);
    } else if (e.key === "Enter" && !e.nativeEvent.isComposing) {
      e.preventDefault();
      runItem(current);
    }
  };

  useEffect(() => {
    if (current) document.getElementById(`${listId}-${current.id}`)?.scrollIntoView({ block: "nearest" });
  }, [current, listId]);

  const groups: { group: string; entries: { it: Item; i: number }[] }[] = [];
  items.forEach((it, i) => {
    const last = groups[groups.length - 1];
    if (last && last.group === it.group) last.entries.push({ it, i });
    else groups.push({ group: it.group, entries: [{ it, i }] });
  });
  return (
    <Modal
      title="Command palette"
      onClose={onClose}
      testId="command-palette"
      className="max-w-[580px]"
      placement="top"
      initialFocus={input}
      hideTitle
    >
      <div className="flex h-12 shrink-0 items-center gap-2.5 border-b border-border px-4">
        <IconSearch className="size-4 shrink-0 text-faint" />
        <input
          ref={input}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onKeyDown}
          role="combobox"
          aria-expanded="true"
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={current ? `${listId}-${current.id}` : undefined}
          aria-label="Find a session, a message or an action"
          placeholder="Find a session, a message or an action…"
          data-testid="palette-input"
          className="h-full min-w-0 flex-1 bg-transparent text-[14px] text-fg outline-none placeholder:text-faint phone:text-[16px]"
        />
        {loading ? <span className="text-[11px] text-faint">Searching…</span> : null}
        <button
          type="button"
          onClick={onClose}
          className="rounded border border-border px-1.5 text-[11px] text-faint hover:text-fg phone:h-[36px] phone:px-2.5"
          aria-label="Esc: close the palette"
        >
          Esc
        </button>
      </div>
      {error ? (
        <p role="alert" className="border-b border-err/30 bg-err/8 px-4 py-1.5 text-[12px] text-err">
          {error}
        </p>
      ) : null}
      <div
        id={listId}
        role="listbox"
        aria-label="Results"
        className="min-h-0 flex-1 overflow-y-auto p-1.5 wide:max-h-[min(440px,60vh)]"
        data-testid="palette-results"
      >
        {groups.map(({ group, entries }, gi) => (
          <div key={group} role="group" aria-labelledby={`${listId}-g${gi}`}>
            <div
              id={`${listId}-g${gi}`}
              className="px-2.5 pb-1 pt-2 text-[10.5px] font-semibold uppercase tracking-wide text-faint"
            >
              {group}
            </div>
            {entries.map(({ it, i }) => (
              <div
                key={it.id}
                id={`${listId}-${it.id}`}
                role="option"
                aria-selected={it === current}
                aria-disabled={it.disabledReason ? true : undefined}
                title={it.disabledReason}
                data-testid={it.session ? "palette-session" : it.hit ? "palette-hit" : "palette-command"}
                data-id={it.session ? it.session.id : it.id}
                onMouseMove={() => setActive(i)}
                onClick={() => runItem(it)}
                className={cx(
                  "flex h-9 cursor-pointer items-center gap-2.5 rounded-md px-2.5 text-[13px] phone:h-[44px]",
                  it === current ? "bg-raised text-fg" : "text-muted",
                  it.disabledReason && "cursor-not-allowed opacity-50",
                )}
              >
                {it.session ? (
                  <SessionStatusGlyph status={it.session.status} />
                ) : (
                  <span className="size-3.5 shrink-0" />
                )}
                <span className="min-w-0 flex-1 truncate">
                  {it.hit ? <Highlighted text={it.hit.snippet} matches={it.hit.matches} /> : it.label}
                </span>
                {it.detail ? (
                  <span className={cx("shrink-0 text-[11px] text-faint", it.hit && "max-w-[40%] truncate")}>
                    {it.detail}
                  </span>
                ) : null}
                {it.shortcut ? (
                  <kbd className="shrink-0 rounded border border-border px-1 font-sans text-[10.5px] text-faint">
                    {it.shortcut}
                  </kbd>
                ) : null}
              </div>
            ))}
          </div>
        ))}
        {items.length === 0 ? (
          <p className="px-3 py-6 text-center text-[12.5px] text-faint">{loading ? "Searching…" : "Nothing matches"}</p>
        ) : null}
      </div>
      <div
        className="flex h-8 shrink-0 items-center gap-3 border-t border-border px-4 text-[11px] text-faint phone:hidden"
        aria-hidden
      >
        <span>↑↓ move</span>
        <span>Enter open</span>
        <span>Esc close</span>
      </div>
    </Modal>
  );
}
