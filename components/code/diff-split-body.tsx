"use client";
/** The side-by-side layout of a diff: old lines on the left, new lines on the right. */
import { Fragment, type ReactNode } from "react";
import { cx } from "@/components/ui/cx";
import type { ReviewSide } from "@/lib/review-comments";
import type { LineRow } from "@/lib/unified-diff/parse";
import type { SplitRow } from "@/lib/unified-diff/split-rows";
import { renderLine, tokensFor } from "./code-block";
import { Gutter, type Hl, MarkerRow, PICKED, pickName, ROW_BG, SIGN_FG } from "./diff-line-parts";

/** One side of a split row: number, sign and text, or an empty filler. */
function SplitCell({
  row,
  side,
  showNumbers,
  numW,
  hl,
  picked,
  onPick,
  at,
}: {
  row: LineRow | undefined;
  side: "old" | "new";
  /** The row's index in the layout. */
  at: number;
  showNumbers: boolean;
  numW: string;
  hl: Hl;
  picked: boolean;
  onPick: ((extend: boolean) => void) | undefined;
}) {
  if (!row)
    return (
      <div
        className={cx(
          "min-w-0 bg-[repeating-linear-gradient(135deg,transparent_0_6px,var(--sb-raised)_6px_7px)]",
          side === "new" && "border-l border-border",
        )}
        data-side={side}
        data-empty
      />
    );
  const kind = row.kind;
  const no = side === "old" ? row.oldNo : row.newNo;
  const toks = side === "old" ? tokensFor(hl, row.oi ?? -1, row.text) : tokensFor(hl, row.ni ?? -1, row.text);
  return (
    <div
      className={cx("flex min-w-0", picked ? PICKED : ROW_BG[kind], side === "new" && "border-l border-border")}
      data-side={side}
      data-kind={kind}
      data-line={no}
      data-picked={picked || undefined}
    >
      <Gutter name={onPick ? pickName(row, side) : undefined} at={`${side}:${at}`} onPick={onPick}>
        {showNumbers ? (
          <span
            className={cx(
              "shrink-0 select-none pr-1 text-right",
              kind === "del" ? "text-del/70" : kind === "add" ? "text-add/70" : "text-faint/60",
            )}
            style={{ width: numW }}
            aria-hidden
          >
            {no}
          </span>
        ) : null}
        <span className={cx("w-5 shrink-0 select-none text-center", SIGN_FG[kind])} aria-hidden>
          {kind === "add" ? "+" : kind === "del" ? "−" : " "}
        </span>
      </Gutter>
      <span className="shiki min-w-0 flex-1 whitespace-pre-wrap pr-3 [overflow-wrap:anywhere]">
        {renderLine(row.text, toks) || "\u200b"}
      </span>
    </div>
  );
}

export function SplitBody({
  rows,
  showNumbers,
  numW,
  oldHl,
  newHl,
  isPicked,
  onPick,
  below,
}: {
  rows: readonly SplitRow[];
  showNumbers: boolean;
  numW: string;
  oldHl: Hl;
  newHl: Hl;
  isPicked(i: number, side: ReviewSide): boolean;
  onPick: ((i: number, side: ReviewSide, extend: boolean) => void) | undefined;
  /** What shows under row `i` (the comment editor, saved comments). */
  below(i: number): ReactNode;
}) {
  return (
    <div className="py-1 font-mono" data-layout="split">
      {rows.map((r, i) => {
        if (r.kind !== "pair") {
          return <MarkerRow key={i} row={r} first={i === 0 || rows[i - 1]?.kind === "file"} />;
        }
        // Context rows are the same line on both sides: highlight each side from its own source.
        return (
          <Fragment key={i}>
            <div className="grid grid-cols-2" data-testid="split-row">
              <SplitCell
                row={r.left}
                side="old"
                showNumbers={showNumbers}
                numW={numW}
                hl={oldHl}
                at={i}
                picked={isPicked(i, "old")}
                onPick={onPick ? (extend) => onPick(i, "old", extend) : undefined}
              />
              <SplitCell
                row={r.right}
                side="new"
                showNumbers={showNumbers}
                numW={numW}
                hl={newHl}
                at={i}
                picked={isPicked(i, "new")}
                onPick={onPick ? (extend) => onPick(i, "new", extend) : undefined}
              />
            </div>
            {below(i)}
          </Fragment>
        );
      })}
    </div>
  );
}
