"use client";
/**
 * Unified-diff rendering (text only, never HTML) with add/del backgrounds, old/new line numbers and
 * lazy syntax highlighting of both sides, in one column (./diff-unified-body.tsx) or side by side
 * (./diff-split-body.tsx). The patch is parsed by lib/unified-diff/. Given `review`, lines take review
 * comments (issue 30): a line number picks a line (Shift: a range) and opens an editor under it.
 */
import { memo, type ReactNode, useMemo, useState } from "react";
import { FilePath } from "@/components/ui/file-path";
import { cx } from "@/components/ui/cx";
import { type DiffLayout, useLinePick } from "@/lib/hooks/use-line-pick";
import { commentLabel, type ReviewAnchor, type ReviewComment } from "@/lib/review-comments";
import { parseUnifiedDiff } from "@/lib/unified-diff/parse";
import { toSplitRows } from "@/lib/unified-diff/split-rows";
import { guessLang } from "@/lib/code-languages";
import { useHighlight, useNearViewport } from "./code-block";
import { CommentEditor, InlineComment } from "./diff-comments";
import { SplitBody } from "./diff-split-body";
import { DiffStat } from "./diff-stat";
import { UnifiedBody } from "./diff-unified-body";

/** Review comments on a diff: the saved ones of this file (and turn), and what picking lines does. */
export interface DiffReview {
  comments: readonly ReviewComment[];
  onSave(anchor: ReviewAnchor, text: string): void;
  onEdit(id: string, text: string): void;
  onDrop(id: string): void;
}

export interface DiffViewProps {
  patch: string;
  /** File path: picks the highlighting language, and titles the header when `header` is set. */
  path?: string;
  /** Show a header row with the path and +/− counts. */
  header?: boolean;
  /** Show old/new line numbers (default: when the patch has numbered hunks). */
  lineNumbers?: boolean;
  /** Collapse past this many rows with a "Show all N lines" button. */
  maxLines?: number;
  /** Extra content in the header row, before the counts (e.g. an "added" chip). */
  headerExtra?: ReactNode;
  /** Shown when the patch has no lines (default "No changes"). */
  emptyText?: string;
  /** One column with -/+ lines (default), or old and new side by side. */
  layout?: DiffLayout;
  /** Draw without border and rounding (inside another frame). */
  bare?: boolean;
  /** Lines take review comments: pick a line (or range) by its number, write, save. */
  review?: DiffReview;
  className?: string;
}

export const DiffView = memo(function DiffView({
  patch,
  path,
  header = false,
  lineNumbers,
  maxLines,
  headerExtra,
  emptyText = "No changes",
  layout = "unified",
  bare = false,
  review,
  className,
}: DiffViewProps) {
  const parsed = useMemo(() => parseUnifiedDiff(patch), [patch]);
  const split = useMemo(() => (layout === "split" ? toSplitRows(parsed.rows) : null), [layout, parsed]);
  const [ref, near] = useNearViewport<HTMLDivElement>();
  const [expanded, setExpanded] = useState(false);
  const lang = guessLang(path);
  const oldText = useMemo(() => parsed.oldSrc.join("\n"), [parsed]);
  const newText = useMemo(() => parsed.newSrc.join("\n"), [parsed]);
  const oldHl = useHighlight(oldText, lang, near && parsed.oldSrc.length > 0);
  const newHl = useHighlight(newText, lang, near && parsed.newSrc.length > 0);

  const showNumbers = lineNumbers ?? parsed.hasNumbers;
  const total = split ? split.length : parsed.rows.length;
  const collapsed = !expanded && maxLines !== undefined && total > maxLines + 3;
  const rows = collapsed ? parsed.rows.slice(0, maxLines) : parsed.rows;
  const splitRows = split && collapsed ? split.slice(0, maxLines) : split;
  let maxNo = 0;
  if (showNumbers) {
    for (const r of parsed.rows) {
      if (r.kind === "add" || r.kind === "del" || r.kind === "ctx") maxNo = Math.max(maxNo, r.oldNo ?? 0, r.newNo ?? 0);
    }
  }
  const numW = `calc(${Math.max(2, String(maxNo).length)}ch + 0.75rem)`;

  // Review comments: the picked lines (for this layout and patch only) and the draft being written.
  const { pick, onPick, isPicked, anchor, draft, closeEditor, commentsAt } = useLinePick({
    comments: review?.comments,
    layout,
    patch,
    path,
    rows: parsed.rows,
    split,
    container: ref,
  });
  // What both layouts' bodies take besides their rows.
  const body = { showNumbers, numW, oldHl, newHl, isPicked, onPick };
  const below = (i: number, sticky: boolean): ReactNode => {
    const saved = commentsAt.get(i);
    const editor = pick && pick.to === i && anchor && path && review;
    if (!saved && !editor) return null;
    const frame = sticky ? "sticky left-0 w-[100cqw]" : undefined;
    return (
      <>
        {saved?.map((c) => (
          <InlineComment
            key={c.id}
            comment={c}
            onEdit={review!.onEdit}
            onDrop={review!.onDrop}
            {...(frame ? { className: frame } : {})}
          />
        ))}
        {editor ? (
          <CommentEditor
            key={`${pick.column}:${pick.anchor}`}
            label={commentLabel({ path, ...anchor })}
            initial={draft.current}
            onChange={(t) => {
              draft.current = t;
            }}
            onSave={(text) => {
              review.onSave(anchor, text);
              closeEditor();
            }}
            onCancel={closeEditor}
            {...(frame ? { className: frame } : {})}
          />
        ) : null}
      </>
    );
  };

  return (
    <div
      ref={ref}
      className={cx(
        "min-w-0 overflow-hidden bg-sunken text-[12px] leading-[18px]",
        review && "@container",
        !bare && "rounded-md border border-border",
        className,
      )}
    >
      {header && path ? (
        <div className="flex h-8 items-center gap-2 border-b border-border bg-panel px-3 text-[12.5px]">
          <FilePath path={path} className="flex-1" />
          {headerExtra}
          {parsed.additions + parsed.deletions > 0 ? (
            <DiffStat additions={parsed.additions} deletions={parsed.deletions} />
          ) : null}
        </div>
      ) : null}
      {total === 0 ? (
        <div className="px-3 py-2 text-[12px] text-faint">{emptyText}</div>
      ) : splitRows ? (
        <SplitBody rows={splitRows} {...body} below={(i) => below(i, false)} />
      ) : (
        <UnifiedBody rows={rows} {...body} below={(i) => below(i, true)} />
      )}
      {collapsed || (expanded && maxLines !== undefined && total > maxLines + 3) ? (
        <button
          type="button"
          onClick={() => setExpanded((v) => !v)}
          className="flex h-7 w-full items-center justify-center border-t border-border text-[11.5px] text-muted hover:bg-raised hover:text-fg"
        >
          {expanded ? "Show less" : `Show all ${total.toLocaleString("en-US")} lines`}
        </button>
      ) : null}
    </div>
  );
});
