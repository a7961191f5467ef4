"use client";
/**
 * The parts of a diff's rows both layouts share: the line gutter (a pick button when the diff takes
 * review comments), the hunk / file / note rows, and the add / del tints.
 */
import type { ReactNode } from "react";
import { cx } from "@/components/ui/cx";
import type { PickColumn } from "@/lib/hooks/use-line-pick";
import type { DiffRow, DiffRowKind, LineRow } from "@/lib/unified-diff/parse";
import type { useHighlight } from "./code-block";

export type Hl = ReturnType<typeof useHighlight>;

export const ROW_BG: Record<DiffRowKind, string> = { add: "bg-add-bg", del: "bg-del-bg", ctx: "" };
export const SIGN_FG: Record<DiffRowKind, string> = { add: "text-add", del: "text-del", ctx: "text-faint" };
const NO_FG: Record<DiffRowKind, string> = { add: "text-add/70", del: "text-del/70", ctx: "text-faint/60" };

/** A line number in the gutter (`tone`: the colour of the row kind it counts, `ctx` for plain). */
export function LineNo({ no, tone, width }: { no: number | string | undefined; tone: DiffRowKind; width: string }) {
  return (
    <span className={cx("shrink-0 select-none pr-1 text-right", NO_FG[tone])} style={{ width }} aria-hidden>
      {no}
    </span>
  );
}

/** What both layouts of a diff body take: the rows, numbers, highlighting, picking, and what shows under a row. */
export interface DiffBodyProps<Row, Column> {
  rows: readonly Row[];
  showNumbers: boolean;
  numW: string;
  oldHl: Hl;
  newHl: Hl;
  isPicked(i: number, column: Column): boolean;
  onPick: ((i: number, column: Column, extend: boolean) => void) | undefined;
  /** What shows under row `i` (the comment editor, saved comments). */
  below(i: number): ReactNode;
}

export const PICKED = "bg-accent/15 shadow-[inset_2px_0_0_var(--sb-accent)]";

/** The line number a picked row is named by, for its button's accessible name. */
export function pickName(row: LineRow, column: PickColumn): string {
  if (row.kind === "del") {
    return row.oldNo !== undefined ? `Comment on removed line ${row.oldNo}` : "Comment on this removed line";
  }
  if (column === "old") return row.oldNo !== undefined ? `Comment on old line ${row.oldNo}` : "Comment on this line";
  return row.newNo !== undefined ? `Comment on line ${row.newNo}` : "Comment on this line";
}

/**
 * A line's gutter (numbers and sign): a button that picks the line when the diff takes comments —
 * click (or Enter) picks it and opens the editor, Shift+click (Shift+Enter) extends to a range.
 */
export function Gutter({
  name,
  at,
  onPick,
  children,
}: {
  name: string | undefined;
  /** `column:row`, to give the focus back to it when the editor closes. */
  at: string;
  onPick: ((extend: boolean) => void) | undefined;
  children: ReactNode;
}) {
  if (!onPick || !name) return <>{children}</>;
  return (
    <button
      type="button"
      aria-label={name}
      title="Comment on this line (Shift+click for a range)"
      data-testid="diff-line-pick"
      data-pick-at={at}
      onMouseDown={(e) => {
        // Shift+click extends the pick; it should not select text as well.
        if (e.shiftKey) e.preventDefault();
      }}
      onClick={(e) => onPick(e.shiftKey)}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          onPick(e.shiftKey);
        }
      }}
      className="flex shrink-0 cursor-pointer items-start self-stretch text-left hover:bg-accent/15 focus-visible:bg-accent/15"
    >
      {children}
    </button>
  );
}

/**
 * A row that is not a line: a hunk shows its context text (e.g. the enclosing function), a file mark
 * its path, a note its text. A bare hunk first in the diff or in a file shows nothing.
 */
export function MarkerRow({ row, first }: { row: Exclude<DiffRow, LineRow>; first: boolean }) {
  if (row.kind === "hunk") {
    if (!row.context && first) return null;
    return (
      <div
        className="my-0.5 flex h-[20px] select-none items-center whitespace-pre bg-raised/60 px-3 text-[11.5px] text-faint"
        title={row.text}
      >
        {row.context || "⋯"}
      </div>
    );
  }
  return (
    <div
      className={cx(
        "flex select-none whitespace-pre px-3 text-faint",
        row.kind === "file" && "mt-1 font-sans font-medium text-muted",
        row.kind === "note" && "text-[11.5px] italic",
      )}
    >
      {row.text}
    </div>
  );
}
