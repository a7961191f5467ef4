"use client";
import { Fragment, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Interrupt, Message, Session } from "@/lib/model";
import { revertIndex, turns, type Turn } from "@/lib/timeline/selectors";
import { DiffStat } from "../code/diff-view";
import { InterruptCard } from "../interrupts/interrupt-card";
import { MessageView } from "../timeline/message-view";
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

/**
 * The session's timeline. Each message is a memoized view that re-renders only when its own object
 * changes; off-screen messages skip layout and paint (`content-visibility`), which keeps long
 * sessions fast. The view sticks to the bottom while text streams unless the user scrolled up.
 */
/** Where each interrupt is shown: after the message holding the tool that asked (or whose subagent asked). */
function anchorInterrupts(messages: Message[], interrupts: Interrupt[], sessionId: string | undefined) {
  const byMessage = new Map<string, Interrupt[]>();
  const loose: Interrupt[] = [];
  for (const it of interrupts) {
    let anchor: string | undefined;
    for (let i = messages.length - 1; i >= 0 && !anchor; i--) {
      for (const b of messages[i]!.blocks) {
        if (b.kind !== "tool") continue;
        if ((it.toolCallId && b.callId === it.toolCallId) || (it.sessionId !== sessionId && b.childSessionId === it.sessionId)) {
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

export function Timeline({ backendId, session, messages, interrupts, lastError, hasOlder, loadingOlder, onLoadOlder, onOpenChanges }: TimelineProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  const [showJump, setShowJump] = useState(false);

  const toBottom = useCallback(() => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, []);

  useLayoutEffect(() => {
    toBottom();
  }, [toBottom]);

  useEffect(() => {
    const el = content.current;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      if (stuck.current) toBottom();
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [toBottom]);

  // Keep the reading position when older messages are prepended.
  const firstId = messages[0]?.id;
  const prevHeight = useRef(0);
  const prevFirst = useRef(firstId);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (prevFirst.current !== firstId && prevHeight.current && !stuck.current) {
      el.scrollTop += el.scrollHeight - prevHeight.current;
    }
    prevFirst.current = firstId;
    prevHeight.current = el.scrollHeight;
  });

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
    stuck.current = atBottom;
    if (showJump === atBottom) setShowJump(!atBottom);
    if (el.scrollTop < 200 && hasOlder && !loadingOlder) onLoadOlder();
  };

  const busy = session?.status === "busy" || session?.status === "retry" || session?.status === "waiting";
  let lastAssistant = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "assistant") {
      lastAssistant = i;
      break;
    }
  }

  const { byMessage, loose } = anchorInterrupts(messages, interrupts, session?.id);
  const reverted = revertIndex(messages, session?.revert);
  const turnEnds = new Map<number, Turn>();
  for (const t of turns(messages)) if (t.totals.files > 0) turnEnds.set(t.end, t);
  const first = interrupts[0]?.id;
  const card = (it: Interrupt) => (
    <InterruptCard key={it.id} interrupt={it} backendId={backendId} sessionId={session?.id ?? it.sessionId} autoFocus={it.id === first} />
  );

  return (
    <div className="relative min-h-0 flex-1">
      <div ref={scroller} onScroll={onScroll} className="h-full overflow-y-auto [overflow-anchor:none]" data-testid="timeline">
        <div ref={content} className="mx-auto flex max-w-[880px] flex-col gap-4 px-4 pb-6 pt-4 phone:px-2.5">
          {hasOlder && (
            <button type="button" onClick={onLoadOlder} className="mx-auto h-7 rounded-md px-3 text-[12px] text-muted hover:bg-raised" data-testid="load-older">
              {loadingOlder ? "Loading…" : "Load earlier messages"}
            </button>
          )}
          {messages.length === 0 && session && (
            <div className="py-16 text-center text-[13px] text-faint" data-testid="empty-session">
              No messages yet. Say what you want the agent to do.
            </div>
          )}
          {messages.map((m, i) => {
            const turn = turnEnds.get(i);
            const dim = reverted >= 0 && i >= reverted;
            return (
              <Fragment key={m.id}>
                {i === reverted ? (
                  <div className="flex items-center gap-2 text-[11.5px] text-warn" data-testid="revert-marker">
                    <IconUndo size={12} />
                    <span>Reverted from here — files restored to before this message</span>
                    <span className="h-px flex-1 bg-warn/30" />
                  </div>
                ) : null}
              <div className={cx("flex flex-col gap-3 transition-opacity", dim && "opacity-45")} data-reverted={dim || undefined} data-testid="timeline-item">
                <div className="[contain-intrinsic-size:auto_120px] [content-visibility:auto]">
                  <MessageView message={m} streaming={busy && i === lastAssistant} />
                </div>
                {turn && !(busy && i === messages.length - 1) ? <TurnChanges turn={turn} {...(onOpenChanges ? { onOpen: onOpenChanges } : {})} /> : null}
                {byMessage.get(m.id)?.map(card)}
              </div>
              </Fragment>
            );
          })}
          {loose.map(card)}
          {lastError && !busy && (
            <div role="alert" data-testid="session-error" className="flex items-start gap-2 rounded-md border border-err/40 bg-err/10 px-3 py-2 text-[12.5px] text-err">
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
                <PulseDots className="text-accent" /> Working…
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
      <button
        type="button"
        onClick={() => {
          stuck.current = true;
          setShowJump(false);
          toBottom();
        }}
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
