"use client";
/** The side-by-side layout of a diff: old lines on the left, new lines on the right. */
import { Fragment } from "react";
import { cx } from "@/components/ui/cx";
import type { ReviewSide } from "@/lib/review-comments";
import type { LineRow } from "@/lib/unified-diff/parse";
import type { SplitRow } from "@/lib/unified-diff/split-rows";
import { renderLine, tokensFor } from "./code-block";
import {
  type DiffBodyProps,
  Gutter,
  type Hl,
  LineNo,
  MarkerRow,
  PICKED,
  pickName,
  ROW_BG,
  SIGN_FG,
} from "./diff-line-parts";

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
        {showNumbers ? <LineNo no={no} tone={kind} width={numW} /> : null}
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
}: DiffBodyProps<SplitRow, ReviewSide>) {
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
              {(["old", "new"] as const).map((side) => (
                <SplitCell
                  key={side}
                  row={side === "old" ? r.left : r.right}
                  side={side}
                  showNumbers={showNumbers}
                  numW={numW}
                  hl={side === "old" ? oldHl : newHl}
                  at={i}
                  picked={isPicked(i, side)}
                  onPick={onPick ? (extend) => onPick(i, side, extend) : undefined}
                />
              ))}
            </div>
            {below(i)}
          </Fragment>
        );
      })}
    </div>
  );
}
