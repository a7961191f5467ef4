"use client";
import Link from "next/link";
import { memo, useLayoutEffect, useRef } from "react";
import type { ToolStatus } from "@/lib/model";
import { type CondensedRow, latestText } from "@/lib/timeline/condense";
import { cx } from "../ui/cx";
import { IconAlert, IconBan, IconCheck, IconCircle, IconPaperclip, IconX } from "../ui/icons";
import { Spinner } from "../ui/spinner";

/** Within this many pixels of the end, the column follows new rows (scrolling up stops it). */
const STICK_PX = 24;

function ToolStatusMark({ status }: { status: ToolStatus }) {
  switch (status) {
    case "running":
      return <Spinner size={10} className="text-accent" />;
    case "completed":
      return <IconCheck size={11} className="shrink-0 text-ok" />;
    case "error":
      return <IconX size={11} className="shrink-0 text-err" />;
    case "awaiting-approval":
      return <IconAlert size={11} className="shrink-0 text-warn" />;
    case "denied":
    case "cancelled":
      return <IconBan size={11} className="shrink-0 text-faint" />;
    default:
      return <IconCircle size={9} className="shrink-0 text-faint" />;
  }
}

const Row = memo(function Row({ row, latest, href }: { row: CondensedRow; latest: boolean; href: string }) {
  switch (row.kind) {
    case "prompt":
      return (
        <p className="truncate border-t border-border/60 pt-1 text-faint first:border-t-0 first:pt-0" title={row.text}>
          <span aria-hidden>› </span>
          {row.text}
        </p>
      );
    case "text":
      // Model text is rendered as text (React escapes it): never markup.
      return (
        <p
          className="whitespace-pre-wrap break-words text-fg"
          data-testid={latest ? "compare-reply" : "compare-text"}
          data-message-id={row.messageId}
        >
          {row.text}
        </p>
      );
    case "thinking":
      return <p className="italic text-faint">Thinking…</p>;
    case "tool":
      return (
        <div
          className="flex h-5 min-w-0 items-center gap-1.5"
          data-testid="compare-tool"
          data-tool={row.tool}
          data-status={row.status}
          title={`${row.tool}: ${row.label} (${row.status})`}
        >
          <span className="grid w-3 shrink-0 place-items-center">
            <ToolStatusMark status={row.status} />
          </span>
          <span className="shrink-0 font-mono text-[11px] text-faint">{row.tool}</span>
          <span className="min-w-0 truncate font-mono text-[11.5px] text-muted">{row.label}</span>
        </div>
      );
    case "file":
      return (
        <p className="flex min-w-0 items-center gap-1.5 text-faint">
          <IconPaperclip size={11} className="shrink-0" />
          <span className="truncate">{row.name}</span>
        </p>
      );
    case "notice":
      return (
        <p
          className={cx(
            "truncate",
            row.level === "error" ? "text-err" : row.level === "warn" ? "text-warn" : "text-faint",
          )}
          title={row.text}
        >
          {row.text}
        </p>
      );
    case "interrupt":
      return (
        <Link
          href={href}
          className="flex min-w-0 items-center gap-1.5 rounded bg-warn/10 px-1.5 py-0.5 text-warn hover:bg-warn/20"
          data-testid="compare-interrupt"
          title={`${row.title}: answer it in the session`}
        >
          <IconAlert size={11} className="shrink-0" />
          <span className="min-w-0 truncate">{row.title}</span>
          <span className="ml-auto shrink-0 text-[11px] underline">Answer</span>
        </Link>
      );
  }
});

/**
 * A session's live timeline, condensed (lib/timeline/condense.ts), in a box of fixed height that
 * scrolls inside the column and follows the newest row unless the user scrolled up.
 */
export function CompareLive({
  rows,
  href,
  placeholder,
}: {
  rows: readonly CondensedRow[];
  /** The session's page (where an interrupt is answered). */
  href: string;
  placeholder: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const latest = latestText(rows);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the end whenever the rows change
  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [rows]);
  return (
    <div
      ref={box}
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
      }}
      className="h-[320px] space-y-1 overflow-y-auto overscroll-contain rounded-md border border-border bg-sunken px-2 py-1.5 text-[12px] leading-[1.45] [overflow-anchor:none]"
      data-testid="compare-live"
      role="log"
      // Four columns streaming at once would talk over each other: the status says when one is done.
      aria-live="off"
      aria-label="Timeline"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reachable by keyboard
      tabIndex={0}
    >
      {rows.length === 0 ? <p className="text-faint">{placeholder}</p> : null}
      {rows.map((r) => (
        <Row key={r.id} row={r} latest={r.id === latest} href={href} />
      ))}
    </div>
  );
}
