"use client";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { Interrupt, Message, Session } from "@/lib/model";
import { PREVIEW_MESSAGES } from "@/lib/client/session-store";
import { useHydrated } from "@/lib/hooks/use-hydrated";
import { useMe } from "@/lib/hooks/use-me";
import { distinctAuthors } from "@/lib/attribution";
import { messagesShape } from "@/lib/timeline/reducer";
import { isBusy, revertIndex, turns, type Turn } from "@/lib/timeline/selectors";
import { FindBar, useFindInSession } from "./find-in-session";
import { DiffStat } from "../code/diff-stat";
import { InterruptCard } from "../interrupts/interrupt-card";
import { MessageView } from "../timeline/message-view";
import { useFollowOwnPrompt, usePinnedRows } from "./use-pinned-rows";
import { cx } from "../ui/cx";
import { IconAlertCircle, IconChevronDown, IconDiff, IconUndo } from "../ui/icons";
import { PulseDots } from "../ui/spinner";

export interface TimelineProps {
  backendId: string;
  session: Session | null;
  messages: Message[];
  interrupts: Interrupt[];
  lastError?: { message: string; code?: string };
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder(): void;
  /** Opens the review panel at a turn (its user message id); absent = no review panel. */
  onOpenChanges?(turnId: string): void;
}

/** "2 files changed +12 −3" under a turn that changed files; opens the review at that turn. */
function TurnChanges({ turn, onOpen }: { turn: Turn; onOpen?: (id: string) => void }) {
  const { files, additions, deletions } = turn.totals;
  const label = `${files} file${files === 1 ? "" : "s"} changed`;
  return (
    <button
      type="button"
      onClick={() => onOpen?.(turn.user.id)}
      disabled={!onOpen}
      data-testid="turn-changes"
      data-turn-id={turn.user.id}
      title={turn.changes.map((c) => `${c.status} ${c.path} +${c.additions} −${c.deletions}`).join("\n")}
      className="inline-flex h-7 w-fit items-center gap-2 rounded-md border border-border bg-panel px-2.5 text-[12px] text-muted hover:border-border-strong hover:text-fg disabled:cursor-default"
    >
      <IconDiff size={13} className="text-faint" />
      <span>{label}</span>
      <DiffStat additions={additions} deletions={deletions} />
    </button>
  );
}

const STICK_PX = 80;
/** Rows kept beyond each edge of the viewport (a row is a whole message); see ./use-pinned-rows.ts for the rest. */
const OVERSCAN = 1;

/** Where each interrupt is shown: after the message holding the tool that asked (or whose subagent asked). */
function anchorInterrupts(messages: Message[], interrupts: Interrupt[], sessionId: string | undefined) {
  const byMessage = new Map<string, Interrupt[]>();
  const loose: Interrupt[] = [];
  for (const it of interrupts) {
    let anchor: string | undefined;
    for (let i = messages.length - 1; i >= 0 && !anchor; i--) {
      for (const b of messages[i]!.blocks) {
        if (b.kind !== "tool") continue;
        if (
          (it.toolCallId && b.callId === it.toolCallId) ||
          (it.sessionId !== sessionId && b.childSessionId === it.sessionId)
        ) {
          anchor = messages[i]!.id;
          break;
        }
      }
    }
    if (anchor) byMessage.set(anchor, [...(byMessage.get(anchor) ?? []), it]);
    else loose.push(it);
  }
  return { byMessage, loose };
}

const NO_ANCHORS = { byMessage: new Map<string, Interrupt[]>(), loose: [] as Interrupt[] };

/**
 * The session's timeline, virtualized (TanStack Virtual): only the rows on screen (plus a few) are
 * in the DOM, each measured at its real height, so the page costs the same at 50 messages and at
 * 5,000. Rows are keyed by message id, so measured heights survive older pages being prepended,
 * and the virtualizer anchors the reading position when they are (`anchorTo: "end"`). The view
 * sticks to the bottom while text streams unless the reader scrolled up. Each message is a memoized
 * view; turns are derived once per change of the list's shape (`messagesShape`), not per frame.
 * Ctrl/Cmd+F opens find in session (./find-in-session.tsx), which sees unrendered rows too.
 */
export function Timeline({
  backendId,
  session,
  messages,
  interrupts,
  lastError,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  onOpenChanges,
}: TimelineProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  const [showJump, setShowJump] = useState(false);

  const sessionId = session?.id;
  const anchors = useMemo(
    () => (interrupts.length ? anchorInterrupts(messages, interrupts, sessionId) : NO_ANCHORS),
    [messages, interrupts, sessionId],
  );
  const { byMessage, loose } = anchors;
  const pins = usePinnedRows(messages, byMessage);

  const virtualizer = useVirtualizer({
    count: messages.length + 1,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (i === 0 ? 44 : 160),
    getItemKey: (i) => (i === 0 ? "top" : messages[i - 1]!.id),
    overscan: OVERSCAN,
    rangeExtractor: pins.rangeExtractor,
    anchorTo: "end",
    followOnAppend: true,
    scrollEndThreshold: STICK_PX,
  });

  const toBottom = useCallback(() => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, []);

  const jumpToLatest = () => {
    stuck.current = true;
    setShowJump(false);
    toBottom();
  };

  // The server render (and the hydration of it) shows the newest messages as a plain, inert list
  // pinned to the bottom, so they are on screen before the scripts run; the virtualized list takes
  // over in the render after hydration.
  const hydrated = useHydrated();
  const preview = !hydrated && messages.length > 0;

  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls to the newest once, when hydration ends
  useLayoutEffect(() => {
    toBottom();
  }, [toBottom, hydrated]);

  // Rows measured, text streaming, a footer appearing: stay at the bottom while the reader is there.
  useEffect(() => {
    const el = content.current;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      if (stuck.current) toBottom();
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [toBottom]);

  const root = useRef<HTMLDivElement>(null);
  const firstId = messages[0]?.id;
  const find = useFindInSession({ messages, hasOlder, loadingOlder, onLoadOlder, rowsRoot: content, root });
  // Bring the current hit into view when it changes (not when rows are added around it).
  const target = find.current ? `${find.current.messageId}#${find.current.occurrence}` : undefined;
  const targetIndex = find.current?.index;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the hit changes, not when rows are added around it
  useEffect(() => {
    if (target === undefined || targetIndex === undefined) return;
    stuck.current = false;
    virtualizer.scrollToIndex(targetIndex + 1, { align: "center" });
  }, [target]);
  // Opened from a search hit (`?find=word&message=id`): find starts on that word, at that message.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the page opens
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    const word = params.get("find");
    if (word) find.openWith(word.slice(0, 200), params.get("message") ?? undefined);
  }, []);
  const closeFind = () => {
    find.close();
    scroller.current?.focus();
  };

  // A page of older messages arrived while the reader is still at the top: keep loading (a
  // prepend anchored at the top fires no scroll event of its own).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a page of older messages arrives (the first id changes)
  useEffect(() => {
    const el = scroller.current;
    if (el && !loadingOlder && hasOlder && !stuck.current && el.scrollTop < 200) onLoadOlder();
  }, [loadingOlder, hasOlder, onLoadOlder, firstId]);

  const lastTop = useRef(0);
  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
    const up = el.scrollTop < lastTop.current - 1;
    lastTop.current = el.scrollTop;
    // Only the reader leaves the bottom, by scrolling up: rows growing under a view that follows the
    // bottom (measured heights, the preview handing over to the virtualized list) do not.
    if (atBottom) stuck.current = true;
    else if (up) stuck.current = false;
    if (showJump === stuck.current) setShowJump(!stuck.current);
    if (!stuck.current && el.scrollTop < 200 && hasOlder && !loadingOlder) onLoadOlder();
  };

  const busy = isBusy(session?.status);
  let lastAssistant = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "assistant") {
      lastAssistant = i;
      break;
    }
  }

  const revert = session?.revert;
  const shape = messagesShape(messages);
  // Turns depend only on the list's shape (user messages and positions): deltas keep the token.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the list's shape; streaming deltas keep it
  const turnEnds = useMemo(() => {
    const ends = new Map<number, Turn>();
    for (const t of turns(messages)) if (t.totals.files > 0) ends.set(t.end, t);
    return ends;
  }, [shape]);
  // Senders are named once more than one person prompts here (a new user message changes the shape)…
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the list's shape; streaming deltas keep it
  const authors = useMemo(() => distinctAuthors(messages), [shape]);
  // …or once the one person who prompted is not the one reading.
  const me = useMe();
  useFollowOwnPrompt(messages, me?.user.id, hydrated, jumpToLatest);
  const soleAuthor = authors.count === 1 ? authors.first : undefined;
  const showAuthors = authors.count > 1 || (soleAuthor !== undefined && me !== undefined && soleAuthor !== me.user.id);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the list's shape and the revert point
  const reverted = useMemo(() => revertIndex(messages, revert), [shape, revert]);
  const first = interrupts[0]?.id;
  const card = (it: Interrupt) => (
    <InterruptCard
      key={it.id}
      interrupt={it}
      backendId={backendId}
      sessionId={session?.id ?? it.sessionId}
      autoFocus={it.id === first}
    />
  );

  const row = (i: number, inPreview = false) => {
    if (i === 0) {
      return hasOlder ? (
        <div className="flex h-7 justify-center">
          <button
            type="button"
            onClick={onLoadOlder}
            className="h-7 rounded-md px-3 text-[12px] text-muted hover:bg-raised"
            data-testid="load-older"
          >
            {loadingOlder ? "Loading…" : "Load earlier messages"}
          </button>
        </div>
      ) : messages.length > 0 ? (
        <div className="flex h-7 items-center justify-center text-[11.5px] text-faint" data-testid="timeline-start">
          Beginning of the session
        </div>
      ) : null;
    }
    const mi = i - 1;
    const m = messages[mi]!;
    const turn = turnEnds.get(mi);
    const dim = reverted >= 0 && mi >= reverted;
    return (
      <>
        {mi === reverted ? (
          <div className="mb-3 flex items-center gap-2 text-[11.5px] text-warn" data-testid="revert-marker">
            <IconUndo size={12} />
            <span>Reverted from here — files restored to before this message</span>
            <span className="h-px flex-1 bg-warn/30" />
          </div>
        ) : null}
        <div
          className={cx("flex flex-col gap-3 transition-opacity", dim && "opacity-45")}
          data-reverted={dim || undefined}
          data-testid={inPreview ? undefined : "timeline-item"}
          data-find-current={find.current?.messageId === m.id || undefined}
        >
          <MessageView message={m} streaming={busy && mi === lastAssistant} showAuthor={showAuthors} />
          {turn && !(busy && mi === messages.length - 1) ? (
            <TurnChanges turn={turn} {...(onOpenChanges ? { onOpen: onOpenChanges } : {})} />
          ) : null}
          {byMessage.get(m.id)?.map(card)}
        </div>
      </>
    );
  };

  const items = virtualizer.getVirtualItems();
  return (
    <div ref={root} className="relative min-h-0 flex-1">
      {find.open ? <FindBar find={find} onClose={closeFind} /> : null}
      <div
        ref={scroller}
        tabIndex={-1}
        onScroll={onScroll}
        className={cx(
          "h-full outline-none [overflow-anchor:none]",
          preview ? "flex flex-col justify-end overflow-hidden" : "overflow-y-auto",
        )}
        data-testid="timeline"
        data-count={messages.length}
        data-has-older={hasOlder || undefined}
      >
        <div
          ref={content}
          onFocus={pins.onFocus}
          onBlur={pins.onBlur}
          className="mx-auto flex max-w-[880px] flex-col px-4 pb-6 pt-4 phone:px-2.5"
        >
          {messages.length === 0 && session && (
            <div className="py-16 text-center text-[13px] text-faint" data-testid="empty-session">
              No messages yet. Say what you want the agent to do.
            </div>
          )}
          {preview ? (
            <div inert className="flex w-full flex-col" data-testid="timeline-preview">
              {messages.slice(-PREVIEW_MESSAGES).map((m, k, shown) => (
                <div key={m.id} className="w-full pb-4">
                  {row(messages.length - shown.length + k + 1, true)}
                </div>
              ))}
            </div>
          ) : (
            <div className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
              {items.map((v) => (
                <div
                  key={v.key}
                  ref={virtualizer.measureElement}
                  data-index={v.index}
                  data-row-key={v.key}
                  className="absolute left-0 top-0 w-full pb-4"
                  style={{ transform: `translateY(${v.start}px)` }}
                >
                  {row(v.index)}
                </div>
              ))}
            </div>
          )}
          <div className="flex flex-col gap-4">
            {loose.map(card)}
            {lastError && !busy && (
              <div
                role="alert"
                data-testid="session-error"
                className="flex items-start gap-2 rounded-md border border-err/40 bg-err/10 px-3 py-2 text-[12.5px] text-err"
              >
                <IconAlertCircle className="mt-0.5 size-4 shrink-0" />
                <div className="min-w-0">
                  <div className="font-medium">{lastError.code ?? "Error"}</div>
                  <div className="whitespace-pre-wrap break-words text-fg">{lastError.message}</div>
                </div>
              </div>
            )}
            {/* A fixed-height status row: appears and disappears without moving the text above. */}
            <div className="flex h-6 items-center gap-2 text-[12px] text-muted" data-testid="activity">
              {session?.status === "busy" && (
                <>
                  <PulseDots className="text-accent" />
                  {/* A backend's own "what I'm doing" line (Opal's status_update), else the generic one. */}
                  {session.statusDetail ? (
                    <span className="truncate" title={session.statusDetail} data-testid="activity-detail">
                      {session.statusDetail}
                    </span>
                  ) : (
                    "Working…"
                  )}
                </>
              )}
              {session?.status === "retry" && (
                <span className="truncate text-warn" title={session.statusDetail}>
                  Retrying — {session.statusDetail}
                </span>
              )}
              {session?.status === "waiting" && <span className="text-warn">Waiting for you</span>}
            </div>
          </div>
        </div>
      </div>
      <button
        type="button"
        onClick={jumpToLatest}
        className={cx(
          "absolute bottom-3 left-1/2 inline-flex h-7 -translate-x-1/2 items-center gap-1 rounded-full border border-border-strong bg-raised px-3 text-[12px] text-fg shadow-lg transition-opacity",
          showJump ? "opacity-100" : "pointer-events-none opacity-0",
        )}
        data-testid="jump-to-latest"
      >
        <IconChevronDown className="size-3.5" /> Latest
      </button>
    </div>
  );
}
