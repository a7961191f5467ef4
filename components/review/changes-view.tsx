"use client";
import { useQueries } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import type { DiffResult } from "@/lib/api";
import { apiGet, sessionPath } from "@/lib/client/api-client";
import type { FileDiff, Message } from "@/lib/model";
import { changeTotals, mergeChanges, turns, userText, type MergedChange, type Turn } from "@/lib/timeline/selectors";
import { messagesShape } from "@/lib/timeline/reducer";
import type { ReviewCommentsApi } from "@/lib/hooks/use-review-comments";
import { newCommentId } from "@/lib/review-comments";
import { DiffStat } from "../code/diff-stat";
import { type DiffReview, DiffView } from "../code/diff-view";
import { cx } from "../ui/cx";
import { FilePath } from "../ui/file-path";
import { IconChevronRight, IconColumns, IconRows, IconSearch } from "../ui/icons";
import { Spinner } from "../ui/spinner";

export type DiffLayout = "unified" | "split";

const LAYOUT_KEY = "sb-diff-layout";

/** The diff layout, remembered in the browser. */
export function useDiffLayout(): [DiffLayout, (l: DiffLayout) => void] {
  const [layout, setLayout] = useState<DiffLayout>("unified");
  useEffect(() => {
    const v = localStorage.getItem(LAYOUT_KEY);
    if (v === "split" || v === "unified") setLayout(v);
  }, []);
  return [
    layout,
    (l) => {
      setLayout(l);
      localStorage.setItem(LAYOUT_KEY, l);
    },
  ];
}

/** Files with more changed lines than this start collapsed; their diff renders when opened. */
export const LARGE_FILE_LINES = 400;

const STATUS: Record<FileDiff["status"], { letter: string; cls: string; label: string }> = {
  added: { letter: "A", cls: "text-add bg-add-bg border-add/30", label: "Added" },
  modified: { letter: "M", cls: "text-warn bg-warn/10 border-warn/30", label: "Modified" },
  deleted: { letter: "D", cls: "text-del bg-del-bg border-del/30", label: "Deleted" },
};

function StatusChip({ status }: { status: FileDiff["status"] }) {
  const s = STATUS[status];
  return (
    <span
      className={cx(
        "inline-grid size-[18px] shrink-0 place-items-center rounded border font-mono text-[10.5px] font-semibold",
        s.cls,
      )}
      title={s.label}
      aria-label={s.label}
    >
      {s.letter}
    </span>
  );
}

function turnLabel(t: Turn, n: number): string {
  const text = userText(t.user).replace(/\s+/g, " ");
  return `Turn ${n} · ${text.length > 60 ? `${text.slice(0, 58)}…` : text || "(no text)"}`;
}

const signature = (t: Turn) => t.changes.map((c) => `${c.path}:${c.status}:${c.additions}:${c.deletions}`).join("|");

export interface ChangesViewProps {
  backendId: string;
  sessionId: string;
  messages: Message[];
  /** The turn (user message id) to show; undefined = every turn of the session. */
  turnId: string | undefined;
  onTurn(turnId: string | undefined): void;
  /** Why patches cannot be loaded (the backend has no diff); the file list still shows. */
  diffUnavailable?: string;
  directory?: string;
  layout: DiffLayout;
  onLayout(layout: DiffLayout): void;
  /** Review comments: lines of the diffs take them (issue 30). */
  review?: ReviewCommentsApi;
}

/**
 * The review of a session's changes: a scope (the whole session or one turn), the files with their
 * status and +/− counts, a filter to find a file, and each file's diff — unified or side by side,
 * highlighted, large files collapsed until opened. Patches come from `GET …/diff?messageId`.
 */
export function ChangesView({
  backendId,
  sessionId,
  messages,
  turnId,
  onTurn,
  diffUnavailable,
  directory,
  layout,
  onLayout: setLayout,
  review,
}: ChangesViewProps) {
  // Turns depend only on the list's shape (user messages and positions): a streaming reply keeps it.
  const shape = messagesShape(messages);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the list's shape; streaming deltas keep it
  const all = useMemo(() => turns(messages), [shape]);
  const numbered = useMemo(() => new Map(all.map((t, i) => [t.user.id, i + 1])), [all]);
  const changed = useMemo(() => all.filter((t) => t.totals.files > 0), [all]);
  const scopeTurns = useMemo(() => (turnId ? changed.filter((t) => t.user.id === turnId) : changed), [changed, turnId]);
  const files: MergedChange[] = useMemo(() => mergeChanges(scopeTurns), [scopeTurns]);
  const totals = useMemo(() => changeTotals(files), [files]);
  const [filter, setFilter] = useState("");
  const [opened, setOpened] = useState<Record<string, boolean>>({});
  const [selected, setSelected] = useState<string>();
  const cards = useRef(new Map<string, HTMLElement>());
  // Another scope is a fresh look: no leftover filter or selection.
  // biome-ignore lint/correctness/useExhaustiveDependencies: another turn in scope resets the filter and selection
  useEffect(() => {
    setFilter("");
    setSelected(undefined);
  }, [turnId]);

  const results = useQueries({
    queries: scopeTurns.map((t) => ({
      queryKey: ["diff", backendId, sessionId, t.user.id, signature(t)],
      queryFn: () =>
        apiGet<DiffResult>(`${sessionPath(backendId, sessionId)}/diff?messageId=${encodeURIComponent(t.user.id)}`),
      enabled: !diffUnavailable,
      staleTime: Infinity,
    })),
  });
  const patches = new Map<string, Map<string, FileDiff>>();
  scopeTurns.forEach((t, i) => {
    const data = results[i]?.data;
    if (data) patches.set(t.user.id, new Map(data.items.map((d) => [d.path, d])));
  });
  const loading = results.some((r) => r.isLoading);
  const failed = results.find((r) => r.isError)?.error;

  // Each diff's review: the comments on its file in its turn (stable per comment list, so the
  // memoized diffs re-render only when their comments change).
  const reviews = useMemo(() => {
    const cache = new Map<string, DiffReview>();
    return (path: string, turn: string): DiffReview | undefined => {
      if (!review) return undefined;
      const key = `${turn}\u0000${path}`;
      let r = cache.get(key);
      if (!r) {
        r = {
          comments: review.comments.filter((c) => c.path === path && (c.turnId ?? turn) === turn),
          onSave: (anchor, text) =>
            review.add({ id: newCommentId(), path, turnId: turn, ...anchor, text, createdAt: Date.now() }),
          onEdit: review.edit,
          onDrop: (id) => review.drop([id]),
        };
        cache.set(key, r);
      }
      return r;
    };
  }, [review]);

  const q = filter.trim().toLowerCase();
  const shown = q ? files.filter((f) => f.path.toLowerCase().includes(q)) : files;
  const isOpen = (f: MergedChange) => opened[f.path] ?? f.additions + f.deletions <= LARGE_FILE_LINES;

  const pick = (path: string) => {
    setSelected(path);
    setOpened((o) => ({ ...o, [path]: true }));
    requestAnimationFrame(() =>
      cards.current.get(path)?.scrollIntoView({
        block: "start",
        behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth",
      }),
    );
  };

  if (changed.length === 0) {
    return (
      <div
        className="grid flex-1 place-items-center p-6 text-center text-[12.5px] text-faint"
        data-testid="changes-empty"
      >
        No file changes in this session yet. When a turn writes or edits files, they show up here.
      </div>
    );
  }

  return (
    <div className="flex min-h-0 flex-1 flex-col" data-testid="changes-view" data-scope={turnId ?? "all"}>
      <div className="flex shrink-0 flex-col gap-2 border-b border-border px-3 py-2.5">
        <div className="flex items-center gap-2">
          <select
            value={turnId ?? ""}
            onChange={(e) => onTurn(e.target.value || undefined)}
            data-testid="changes-scope"
            aria-label="Which changes"
            className="h-7 min-w-0 flex-1 truncate rounded-md border border-border bg-sunken px-2 text-[12px] text-fg outline-none focus:border-accent"
          >
            <option value="">
              All changes · {changed.length} turn{changed.length === 1 ? "" : "s"}
            </option>
            {changed.map((t) => (
              <option key={t.user.id} value={t.user.id}>
                {turnLabel(t, numbered.get(t.user.id) ?? 0)}
              </option>
            ))}
          </select>
          <div className="flex shrink-0 rounded-md border border-border p-0.5" role="group" aria-label="Diff layout">
            {(["unified", "split"] as const).map((l) => (
              <button
                key={l}
                type="button"
                onClick={() => setLayout(l)}
                aria-pressed={layout === l}
                data-testid={`diff-layout-${l}`}
                title={l === "unified" ? "Unified" : "Side by side"}
                className={cx(
                  "inline-flex h-6 items-center gap-1 rounded px-1.5 text-[11.5px]",
                  layout === l ? "bg-raised text-fg" : "text-faint hover:text-fg",
                )}
              >
                {l === "unified" ? <IconRows size={12} /> : <IconColumns size={12} />}
                {l === "unified" ? "Unified" : "Split"}
              </button>
            ))}
          </div>
        </div>
        <div className="flex items-center gap-2 text-[12px]">
          <span className="text-muted" data-testid="changes-totals">
            {totals.files} file{totals.files === 1 ? "" : "s"} changed
          </span>
          <DiffStat additions={totals.additions} deletions={totals.deletions} />
          {loading ? <Spinner size={11} className="text-faint" /> : null}
          <label className="ml-auto flex h-6 w-[44%] min-w-[120px] items-center gap-1.5 rounded-md border border-border bg-sunken px-1.5 text-faint focus-within:border-accent">
            <IconSearch size={12} className="shrink-0" />
            <input
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && shown[0]) pick(shown[0].path);
                if (e.key === "Escape") setFilter("");
              }}
              placeholder="Find a file"
              data-testid="file-filter"
              aria-label="Find a file"
              className="min-w-0 flex-1 bg-transparent text-[12px] text-fg outline-none placeholder:text-faint"
            />
          </label>
        </div>
      </div>

      <div className="min-h-0 flex-1 overflow-y-auto" data-testid="changes-scroll">
        <ul className="border-b border-border py-1" data-testid="review-files" aria-label="Changed files">
          {shown.map((f) => (
            <li key={f.path}>
              <button
                type="button"
                onClick={() => pick(f.path)}
                data-testid="review-file"
                data-path={f.path}
                data-status={f.status}
                data-additions={f.additions}
                data-deletions={f.deletions}
                aria-current={selected === f.path || undefined}
                className={cx(
                  "flex h-7 w-full items-center gap-2 px-3 text-left text-[12.5px] hover:bg-raised",
                  selected === f.path && "bg-raised",
                )}
              >
                <StatusChip status={f.status} />
                <FilePath path={f.path} {...(directory ? { base: directory } : {})} className="flex-1" />
                <DiffStat additions={f.additions} deletions={f.deletions} />
              </button>
            </li>
          ))}
          {shown.length === 0 ? (
            <li className="px-3 py-1.5 text-[12px] text-faint">No file matches “{filter}”.</li>
          ) : null}
        </ul>

        {diffUnavailable ? <p className="px-3 py-2 text-[12px] text-faint">{diffUnavailable}</p> : null}
        {failed ? (
          <p className="px-3 py-2 text-[12px] text-err" role="alert">
            Could not load the diff: {failed instanceof Error ? failed.message : "unknown error"}
          </p>
        ) : null}

        <div className="flex flex-col gap-3 p-3">
          {shown.map((f) => {
            const open = isOpen(f);
            const large = f.additions + f.deletions > LARGE_FILE_LINES;
            const parts = f.turnIds.map((id) => ({ id, diff: patches.get(id)?.get(f.path) }));
            return (
              <section
                key={f.path}
                ref={(el) => {
                  if (el) cards.current.set(f.path, el);
                  else cards.current.delete(f.path);
                }}
                data-testid="review-diff"
                data-path={f.path}
                data-open={open}
                className={cx(
                  "scroll-mt-2 overflow-hidden rounded-md border bg-sunken",
                  selected === f.path ? "border-accent/60" : "border-border",
                )}
              >
                <button
                  type="button"
                  onClick={() => setOpened((o) => ({ ...o, [f.path]: !open }))}
                  aria-expanded={open}
                  className="flex h-8 w-full items-center gap-2 border-b border-border bg-panel px-2.5 text-left text-[12.5px]"
                >
                  <IconChevronRight
                    size={12}
                    className={cx("shrink-0 text-faint transition-transform", open && "rotate-90")}
                  />
                  <StatusChip status={f.status} />
                  <FilePath path={f.path} {...(directory ? { base: directory } : {})} className="flex-1" />
                  <DiffStat additions={f.additions} deletions={f.deletions} />
                </button>
                {!open ? (
                  large ? (
                    <button
                      type="button"
                      onClick={() => setOpened((o) => ({ ...o, [f.path]: true }))}
                      data-testid="expand-file"
                      className="flex h-8 w-full items-center justify-center text-[12px] text-muted hover:bg-raised hover:text-fg"
                    >
                      Large diff — {(f.additions + f.deletions).toLocaleString("en-US")} changed lines. Show it
                    </button>
                  ) : null
                ) : (
                  <div className="flex flex-col">
                    {parts.map(({ id, diff }) => (
                      <div key={id}>
                        {parts.length > 1 ? (
                          <div className="border-b border-border px-3 py-1 text-[11px] text-faint">
                            {turnLabel(changed.find((t) => t.user.id === id)!, numbered.get(id) ?? 0)}
                          </div>
                        ) : null}
                        {diff ? (
                          <DiffView
                            patch={diff.patch}
                            path={f.path}
                            layout={layout}
                            bare
                            {...(reviews(f.path, id) ? { review: reviews(f.path, id) } : {})}
                            emptyText={f.status === "deleted" ? "File deleted" : "No textual changes"}
                          />
                        ) : diffUnavailable ? null : (
                          <div className="px-3 py-2 text-[12px] text-faint">Loading…</div>
                        )}
                      </div>
                    ))}
                  </div>
                )}
              </section>
            );
          })}
        </div>
      </div>
    </div>
  );
}
