"use client";
/**
 * Picking lines of a diff for a review comment (issue 30): the picked rows of the layout shown, what
 * they are about, the draft being written, and where each saved comment shows.
 */
import { type RefObject, useMemo, useRef, useState } from "react";
import { anchorFor, type ReviewAnchor, type ReviewComment, type ReviewSide } from "../review-comments";
import { type DiffRow, isLineRow, type LineRow } from "../unified-diff/parse";
import type { SplitRow } from "../unified-diff/split-rows";

/** The column lines are picked in: a side of the split layout, or the unified one ("both"). */
export type PickColumn = ReviewSide | "both";

export type DiffLayout = "unified" | "split";

/** Picked lines: rows `from`…`to` of the shown layout, in one column (the editor opens under `to`). */
export interface LinePick {
  column: PickColumn;
  anchor: number;
  from: number;
  to: number;
  layout: DiffLayout;
  patch: string;
}

export interface LinePickOptions {
  /** Saved comments of this diff; without it lines cannot be picked. */
  comments: readonly ReviewComment[] | undefined;
  layout: DiffLayout;
  patch: string;
  path: string | undefined;
  /** The parsed rows (unified layout) and, in the split layout, its rows. */
  rows: readonly DiffRow[];
  split: readonly SplitRow[] | null;
  /** The diff's element: the focus goes back to a line number in it when the editor closes. */
  container: RefObject<HTMLElement | null>;
}

export interface LinePickState {
  /** The pick of this layout and patch, if any. */
  pick: LinePick | null;
  /** Picks row `i` in `column` (`extend`: from the pick's anchor); undefined when comments are off. */
  onPick: ((i: number, column: PickColumn, extend: boolean) => void) | undefined;
  isPicked(i: number, column: PickColumn): boolean;
  /** What the picked lines are about (when there is a pick and a path). */
  anchor: ReviewAnchor | undefined;
  /** The draft of the comment being written (kept while the editor re-renders). */
  draft: RefObject<string>;
  closeEditor(): void;
  /** Saved comments by the row they show under: the row of their last line. */
  commentsAt: Map<number, ReviewComment[]>;
}

export function useLinePick({ comments, layout, patch, path, rows, split, container }: LinePickOptions): LinePickState {
  const [pickState, setPick] = useState<LinePick | null>(null);
  const draft = useRef("");
  const pick = pickState && pickState.layout === layout && pickState.patch === patch ? pickState : null;
  const onPick = comments
    ? (i: number, column: PickColumn, extend: boolean) =>
        setPick((s) =>
          extend && s && s.column === column && s.layout === layout && s.patch === patch
            ? { ...s, from: Math.min(s.anchor, i), to: Math.max(s.anchor, i) }
            : { column, anchor: i, from: i, to: i, layout, patch },
        )
    : undefined;
  const pickedLines = (p: LinePick): LineRow[] => {
    if (p.layout === "split" && split) {
      const out: LineRow[] = [];
      for (const r of split.slice(p.from, p.to + 1)) {
        const line = r.kind === "pair" ? (p.column === "old" ? r.left : r.right) : undefined;
        if (line) out.push(line);
      }
      return out;
    }
    return rows.slice(p.from, p.to + 1).filter(isLineRow);
  };
  const anchor = pick && path ? anchorFor(pickedLines(pick), pick.column) : undefined;
  const closeEditor = () => {
    // The keyboard goes back to the line number the pick started on.
    const back = pick ? `${pick.column}:${pick.anchor}` : undefined;
    setPick(null);
    draft.current = "";
    if (back) {
      requestAnimationFrame(() =>
        container.current?.querySelector<HTMLElement>(`[data-pick-at="${back}"]`)?.focus({ preventScroll: true }),
      );
    }
  };
  // Where each saved comment shows: under the row of its last line, in the layout shown.
  const commentsAt = useMemo(() => {
    const at = new Map<number, ReviewComment[]>();
    if (!comments) return at;
    for (const c of comments) {
      const n = c.end ?? c.start;
      if (n === undefined) continue;
      let found = -1;
      if (split) {
        found = split.findLastIndex(
          (r) => r.kind === "pair" && (c.side === "new" ? r.right?.newNo === n : r.left?.oldNo === n),
        );
      } else {
        found = rows.findLastIndex(
          (r) =>
            isLineRow(r) && (c.side === "new" ? r.kind !== "del" && r.newNo === n : r.kind !== "add" && r.oldNo === n),
        );
      }
      if (found >= 0) at.set(found, [...(at.get(found) ?? []), c]);
    }
    return at;
  }, [comments, split, rows]);
  const isPicked = (i: number, column: PickColumn) =>
    pick !== null && pick.column === column && i >= pick.from && i <= pick.to;
  return { pick, onPick, isPicked, anchor, draft, closeEditor, commentsAt };
}
