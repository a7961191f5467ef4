/**
 * Side-by-side layout of a parsed unified diff: context lines on both sides, and each run of
 * deletions paired line by line with the run of additions that follows it. Pure (unit-tested).
 */
import { type DiffRow, isLineRow, type LineRow } from "./parse";

type OtherRow = Extract<DiffRow, { kind: "hunk" | "note" | "file" }>;

export type SplitRow = { kind: "pair"; left?: LineRow; right?: LineRow } | OtherRow;

export function toSplitRows(rows: readonly DiffRow[]): SplitRow[] {
  const out: SplitRow[] = [];
  let dels: LineRow[] = [];
  let adds: LineRow[] = [];
  const flush = () => {
    const n = Math.max(dels.length, adds.length);
    for (let i = 0; i < n; i++) {
      const left = dels[i];
      const right = adds[i];
      out.push({ kind: "pair", ...(left ? { left } : {}), ...(right ? { right } : {}) });
    }
    dels = [];
    adds = [];
  };
  for (const r of rows) {
    if (!isLineRow(r)) {
      flush();
      out.push(r);
    } else if (r.kind === "del") {
      // A deletion after additions starts a new change block.
      if (adds.length) flush();
      dels.push(r);
    } else if (r.kind === "add") {
      adds.push(r);
    } else {
      flush();
      out.push({ kind: "pair", left: r, right: r });
    }
  }
  flush();
  return out;
}
