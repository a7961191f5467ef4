"use client";
/**
 * Find in session: Ctrl/Cmd+F over the timeline. The browser's own find cannot see rows the
 * virtualized timeline has not rendered, so this searches the loaded messages' text
 * (lib/timeline/find.ts), pages older history through `onLoadOlder` (the messages route) while a
 * search wants more, and marks hits with the CSS Custom Highlight API: ranges over the rendered text
 * nodes, so no markup is ever built from message text.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import type { Message } from "@/lib/model";
import { findHits, textRanges, type FindHit } from "@/lib/timeline/find";
import { IconChevronDown, IconSearch, IconX } from "../ui/icons";
import { Spinner } from "../ui/spinner";

const ALL = "sb-find";
const CURRENT = "sb-find-current";

interface Options {
  messages: Message[];
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder(): void;
  /** The element holding the rendered rows, where highlights are drawn. */
  rowsRoot: RefObject<HTMLElement | null>;
  /** The timeline: Ctrl/Cmd+F opens find when focus is inside it (or nowhere in particular). */
  root: RefObject<HTMLElement | null>;
}

/** What the find bar and the timeline share. */
export interface FindState {
  open: boolean;
  query: string;
  setQuery(q: string): void;
  hits: FindHit[];
  /** Position of the current hit in `hits`, or -1. */
  position: number;
  current: FindHit | undefined;
  /** Older history is being paged in to look for (more) hits. */
  seeking: boolean;
  /** The whole history has been searched. */
  complete: boolean;
  next(): void;
  previous(): void;
  close(): void;
  /** Opens find on `query`, on its first hit in `messageId` (paging older history in until it is loaded). */
  openWith(query: string, messageId?: string): void;
  input: RefObject<HTMLInputElement | null>;
}

function supportsHighlights(): boolean {
  return typeof CSS !== "undefined" && "highlights" in CSS && typeof Highlight !== "undefined";
}

export function useFindInSession({
  messages,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  rowsRoot,
  root,
}: Options): FindState {
  const [open, setOpen] = useState(false);
  const [query, setQueryState] = useState("");
  /** The current hit by identity (message + occurrence), so it survives pages prepended above. */
  const [pick, setPick] = useState<{ messageId: string; occurrence: number } | null>(null);
  /** Paging older history: stop once a hit older than `before` (a message id) is loaded. */
  const [seek, setSeek] = useState<{ before: string | null } | null>(null);
  /** A message to go to (a search hit opened from elsewhere): older pages load until it is there. */
  const [target, setTarget] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const hits = useMemo(() => (open ? findHits(messages, query) : []), [open, messages, query]);
  let position = pick ? hits.findIndex((h) => h.messageId === pick.messageId && h.occurrence === pick.occurrence) : -1;
  if (position < 0 && pick === null && hits.length) position = hits.length - 1;
  const current = position >= 0 ? hits[position] : undefined;

  const setQuery = useCallback((q: string) => {
    setQueryState(q);
    setPick(null);
    setSeek(q.trim() ? { before: null } : null);
  }, []);

  // Page older history while the search wants more: no hit at all yet, or "previous" at the oldest.
  useEffect(() => {
    if (!seek || !open) return;
    const boundary = seek.before === null ? messages.length : messages.findIndex((m) => m.id === seek.before);
    const older = hits.filter((h) => h.index < boundary);
    if (older.length) {
      const h = older[older.length - 1]!;
      setPick({ messageId: h.messageId, occurrence: h.occurrence });
      setSeek(null);
    } else if (!hasOlder) setSeek(null);
    else if (!loadingOlder) onLoadOlder();
  }, [seek, open, hits, messages, hasOlder, loadingOlder, onLoadOlder]);

  useEffect(() => {
    if (!target || !open || !messages.length) return;
    if (messages.some((m) => m.id === target)) {
      setPick({ messageId: target, occurrence: 0 });
      setTarget(null);
    } else if (!hasOlder) setTarget(null);
    else if (!loadingOlder) onLoadOlder();
  }, [target, open, messages, hasOlder, loadingOlder, onLoadOlder]);

  const openWith = useCallback((q: string, messageId?: string) => {
    setOpen(true);
    setQueryState(q);
    setPick(null);
    setTarget(messageId ?? null);
    setSeek(!messageId && q.trim() ? { before: null } : null);
  }, []);

  const next = useCallback(() => {
    if (!hits.length) return;
    const h = hits[(position + 1) % hits.length]!;
    setSeek(null);
    setPick({ messageId: h.messageId, occurrence: h.occurrence });
  }, [hits, position]);

  const previous = useCallback(() => {
    if (position > 0) {
      const h = hits[position - 1]!;
      setSeek(null);
      setPick({ messageId: h.messageId, occurrence: h.occurrence });
    } else if (hasOlder) setSeek({ before: messages[0]?.id ?? null });
    else if (hits.length) {
      const h = hits[hits.length - 1]!;
      setPick({ messageId: h.messageId, occurrence: h.occurrence });
    }
  }, [hits, position, hasOlder, messages]);

  const close = useCallback(() => {
    setOpen(false);
    setSeek(null);
    if (supportsHighlights()) {
      CSS.highlights.delete(ALL);
      CSS.highlights.delete(CURRENT);
    }
  }, []);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.key.toLowerCase() !== "f") return;
      const t = e.target;
      const inside =
        t === document.body ||
        t === document.documentElement ||
        (t instanceof Node && Boolean(root.current?.contains(t)));
      if (!inside) return;
      e.preventDefault();
      setOpen(true);
      requestAnimationFrame(() => {
        input.current?.focus();
        input.current?.select();
      });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [root]);

  // Draw the highlights on the rows that are rendered, after every render (rows come and go).
  useEffect(() => {
    if (!open || !supportsHighlights()) return;
    const frame = requestAnimationFrame(() => {
      const root = rowsRoot.current;
      if (!root || !query.trim()) {
        CSS.highlights.delete(ALL);
        CSS.highlights.delete(CURRENT);
        return;
      }
      const ranges = textRanges(root, query);
      CSS.highlights.set(ALL, new Highlight(...ranges));
      root.dataset.findHighlights = String(ranges.length);
      const el = current ? root.querySelector(`[data-message-id="${CSS.escape(current.messageId)}"]`) : null;
      const mine = el ? textRanges(el, query) : [];
      const range = mine[Math.min(current?.occurrence ?? 0, mine.length - 1)];
      if (range) CSS.highlights.set(CURRENT, new Highlight(range));
      else CSS.highlights.delete(CURRENT);
    });
    return () => cancelAnimationFrame(frame);
  });
  useEffect(() => close, [close]);

  return {
    open,
    query,
    setQuery,
    hits,
    position,
    current,
    seeking: seek !== null && hasOlder,
    complete: !hasOlder,
    next,
    previous,
    close,
    openWith,
    input,
  };
}

/** The find bar, floating over the top right of the timeline. */
export function FindBar({ find, onClose }: { find: FindState; onClose(): void }) {
  const count = find.hits.length;
  const status = !find.query.trim()
    ? ""
    : find.seeking
      ? count
        ? `${find.position + 1} of ${count}+`
        : "Searching…"
      : count
        ? `${find.position + 1} of ${count}${find.complete ? "" : "+"}`
        : "No results";
  return (
    <div
      role="search"
      className="absolute right-4 top-2 z-20 flex h-9 w-[min(360px,calc(100%-2rem))] items-center gap-1 rounded-lg border border-border-strong bg-raised pl-2.5 pr-1 shadow-lg"
      data-testid="find-bar"
      data-count={count}
      data-position={find.position}
      data-seeking={find.seeking || undefined}
    >
      <IconSearch size={13} className="shrink-0 text-faint" />
      <input
        ref={find.input}
        value={find.query}
        onChange={(e) => find.setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            if (e.shiftKey) find.previous();
            else find.next();
          } else if (e.key === "Escape") {
            e.preventDefault();
            onClose();
          }
        }}
        placeholder="Find in session"
        aria-label="Find in session"
        spellCheck={false}
        className="h-full min-w-0 flex-1 bg-transparent text-[13px] text-fg outline-none placeholder:text-faint"
        data-testid="find-input"
      />
      <span
        className="flex shrink-0 items-center gap-1 text-[11.5px] tabular-nums text-muted"
        aria-live="polite"
        data-testid="find-status"
      >
        {find.seeking ? <Spinner size={11} /> : null}
        {status}
      </span>
      <button
        type="button"
        onClick={find.previous}
        disabled={!count && !find.seeking}
        aria-label="Previous match (older)"
        title="Previous (Shift+Enter)"
        className="grid size-7 place-items-center rounded text-muted hover:bg-panel hover:text-fg disabled:opacity-40"
        data-testid="find-previous"
      >
        <IconChevronDown size={14} className="rotate-180" />
      </button>
      <button
        type="button"
        onClick={find.next}
        disabled={!count}
        aria-label="Next match (newer)"
        title="Next (Enter)"
        className="grid size-7 place-items-center rounded text-muted hover:bg-panel hover:text-fg disabled:opacity-40"
        data-testid="find-next"
      >
        <IconChevronDown size={14} />
      </button>
      <button
        type="button"
        onClick={onClose}
        aria-label="Close find"
        title="Close (Esc)"
        className="grid size-7 place-items-center rounded text-muted hover:bg-panel hover:text-fg"
        data-testid="find-close"
      >
        <IconX size={13} />
      </button>
    </div>
  );
}
