"use client";
/** The unified layout of a diff: one column of removed, added and context lines. */
import { Fragment } from "react";
import { cx } from "@/components/ui/cx";
import type { PickColumn } from "@/lib/hooks/use-line-pick";
import type { DiffRow } from "@/lib/unified-diff/parse";
import { renderLine, tokensFor } from "./code-block";
import { type DiffBodyProps, Gutter, LineNo, MarkerRow, PICKED, pickName, ROW_BG, SIGN_FG } from "./diff-line-parts";

export function UnifiedBody({
  rows,
  showNumbers,
  numW,
  oldHl,
  newHl,
  isPicked,
  onPick,
  below,
}: DiffBodyProps<DiffRow, PickColumn>) {
  return (
    <div className="overflow-x-auto py-1 font-mono">
      <div className="w-max min-w-full">
        {rows.map((r, i) => {
          if (r.kind === "hunk" || r.kind === "file" || r.kind === "note") {
            return <MarkerRow key={i} row={r} first={i === 0 || rows[i - 1]?.kind === "file"} />;
          }
          const toks = r.kind === "del" ? tokensFor(oldHl, r.oi ?? -1, r.text) : tokensFor(newHl, r.ni ?? -1, r.text);
          const picked = isPicked(i, "both");
          return (
            <Fragment key={i}>
              <div
                className={cx("flex", picked ? PICKED : ROW_BG[r.kind])}
                data-kind={r.kind}
                data-line={r.kind === "del" ? r.oldNo : r.newNo}
                data-picked={picked || undefined}
              >
                <Gutter
                  name={onPick ? pickName(r, "both") : undefined}
                  at={`both:${i}`}
                  onPick={onPick ? (extend) => onPick(i, "both", extend) : undefined}
                >
                  {showNumbers ? (
                    <>
                      <LineNo
                        no={r.kind === "add" ? "" : r.oldNo}
                        tone={r.kind === "del" ? "del" : "ctx"}
                        width={numW}
                      />
                      <LineNo
                        no={r.kind === "del" ? "" : r.newNo}
                        tone={r.kind === "add" ? "add" : "ctx"}
                        width={numW}
                      />
                    </>
                  ) : null}
                  <span className={cx("w-6 shrink-0 select-none text-center", SIGN_FG[r.kind])} aria-hidden>
                    {r.kind === "add" ? "+" : r.kind === "del" ? "−" : " "}
                  </span>
                </Gutter>
                <span className="shiki min-w-0 flex-1 whitespace-pre pr-4">{renderLine(r.text, toks) || "\u200b"}</span>
              </div>
              {below(i)}
            </Fragment>
          );
        })}
      </div>
    </div>
  );
}
