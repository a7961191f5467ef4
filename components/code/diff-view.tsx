"use client";
/**
 * Unified-diff rendering (text only, never HTML) with add/del backgrounds, old/new line numbers and
 * lazy syntax highlighting of both sides, plus `diffFromStrings`, a tiny line differ for tools that
 * carry before/after text but no patch (edit, write). Given `review`, lines take review comments
 * (issue 30): a line number picks a line (Shift: a range) and opens an editor under it.
 */
import { Fragment, memo, useMemo, useRef, useState, type ReactNode } from "react";
import { FilePath } from "@/components/ui/file-path";
import { anchorFor, commentLabel, type ReviewAnchor, type ReviewComment, type ReviewSide } from "@/lib/review-comments";
import { CommentEditor, InlineComment } from "./diff-comments";
import { cx } from "@/components/ui/cx";
import { guessLang, renderLine, tokensFor, useHighlight, useNearViewport } from "./code-block";
import { toSplitRows, type LineRow } from "./split-rows";

/* ------------------------------------------------------------------------------------ parsing */

export type DiffRowKind = "add" | "del" | "ctx";
export type DiffRow =
  | { kind: DiffRowKind; text: string; oldNo?: number; newNo?: number; oi?: number; ni?: number }
  | { kind: "hunk"; text: string; context: string }
  | { kind: "note"; text: string }
  | { kind: "file"; text: string };

export interface ParsedDiff {
  rows: DiffRow[];
  additions: number;
  deletions: number;
  /** Text of the old / new side, line by line (for highlighting). */
  oldSrc: string[];
  newSrc: string[];
  hasNumbers: boolean;
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;
const FILE_MARK_RE = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const HEADER_RE =
  /^(diff --git |diff -|index |--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode|similarity index|dissimilarity index|rename from|rename to|copy from|copy to|Binary files|\*\*\* (Begin|End) Patch|\*\*\* Move to:|\*\*\* End of File)/;

/** Parses unified diff text (git style, plain `diff -u`, or OpenCode's `*** Begin Patch` form). */
export function parseUnifiedDiff(patch: string): ParsedDiff {
  const rows: DiffRow[] = [];
  const oldSrc: string[] = [];
  const newSrc: string[] = [];
  let additions = 0;
  let deletions = 0;
  let inHunk = false;
  let counted = false;
  let oldLeft = 0;
  let newLeft = 0;
  let oldNo: number | undefined;
  let newNo: number | undefined;
  let hasNumbers = false;

  const lines = patch.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();

  for (const line of lines) {
    if (line.startsWith("@@")) {
      const m = HUNK_RE.exec(line);
      if (m) {
        oldNo = Number(m[1]);
        newNo = Number(m[3]);
        oldLeft = m[2] !== undefined ? Number(m[2]) : 1;
        newLeft = m[4] !== undefined ? Number(m[4]) : 1;
        counted = true;
        hasNumbers = true;
        rows.push({ kind: "hunk", text: line, context: (m[5] ?? "").trim() });
      } else {
        counted = false;
        oldNo = undefined;
        newNo = undefined;
        const rest = line
          .replace(/^@@+\s?/, "")
          .replace(/\s?@@+$/, "")
          .trim();
        rows.push({ kind: "hunk", text: line, context: rest });
      }
      inHunk = true;
      continue;
    }
    if (line.startsWith("\\")) {
      rows.push({ kind: "note", text: line.slice(1).trim() });
      continue;
    }
    if (counted && oldLeft <= 0 && newLeft <= 0) inHunk = false;
    const fm = FILE_MARK_RE.exec(line);
    if (fm) {
      rows.push({ kind: "file", text: fm[2] ?? "" });
      inHunk = true;
      counted = false;
      oldNo = undefined;
      newNo = undefined;
      continue;
    }
    if (!inHunk || (!counted && HEADER_RE.test(line))) continue;

    const c = line[0];
    const text = line.slice(1);
    if (c === "+") {
      additions++;
      rows.push({ kind: "add", text, newNo, ni: newSrc.length });
      newSrc.push(text);
      if (newNo !== undefined) newNo++;
      newLeft--;
    } else if (c === "-") {
      deletions++;
      rows.push({ kind: "del", text, oldNo, oi: oldSrc.length });
      oldSrc.push(text);
      if (oldNo !== undefined) oldNo++;
      oldLeft--;
    } else {
      // Context (" x"), or an empty line some tools emit for an empty context line.
      const t = c === " " ? text : line;
      rows.push({ kind: "ctx", text: t, oldNo, newNo, oi: oldSrc.length, ni: newSrc.length });
      oldSrc.push(t);
      newSrc.push(t);
      if (oldNo !== undefined) oldNo++;
      if (newNo !== undefined) newNo++;
      oldLeft--;
      newLeft--;
    }
  }
  return { rows, additions, deletions, oldSrc, newSrc, hasNumbers };
}

/* ------------------------------------------------------------------------------ line differ */

interface Op {
  kind: DiffRowKind;
  text: string;
  /** Old / new lines before this op (0-based positions). */
  ob: number;
  nb: number;
}

function splitLines(s: string): string[] {
  if (s === "") return [];
  const lines = s.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const LCS_MAX = 2000;

function lineOps(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);

  const kinds: DiffRowKind[] = [];
  const texts: string[] = [];
  for (let i = 0; i < pre; i++) {
    kinds.push("ctx");
    texts.push(a[i]!);
  }
  const n = am.length;
  const m = bm.length;
  if (n > 0 && m > 0 && n <= LCS_MAX && m <= LCS_MAX) {
    // Intern lines to ints, then a suffix-LCS table.
    const ids = new Map<string, number>();
    const id = (s: string) => {
      let v = ids.get(s);
      if (v === undefined) ids.set(s, (v = ids.size));
      return v;
    };
    const ai = am.map(id);
    const bi = bm.map(id);
    const w = m + 1;
    const dp = new Uint16Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        dp[i * w + j] =
          ai[i] === bi[j] ? dp[(i + 1) * w + j + 1]! + 1 : Math.max(dp[(i + 1) * w + j]!, dp[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && ai[i] === bi[j]) {
        kinds.push("ctx");
        texts.push(am[i]!);
        i++;
        j++;
      } else if (i < n && (j >= m || dp[(i + 1) * w + j]! >= dp[i * w + j + 1]!)) {
        // Prefer deletions first, so a change reads as "- old" then "+ new".
        kinds.push("del");
        texts.push(am[i]!);
        i++;
      } else {
        kinds.push("add");
        texts.push(bm[j]!);
        j++;
      }
    }
  } else {
    for (const t of am) {
      kinds.push("del");
      texts.push(t);
    }
    for (const t of bm) {
      kinds.push("add");
      texts.push(t);
    }
  }
  for (let i = a.length - suf; i < a.length; i++) {
    kinds.push("ctx");
    texts.push(a[i]!);
  }

  const ops: Op[] = [];
  let ob = 0;
  let nb = 0;
  for (let k = 0; k < kinds.length; k++) {
    const kind = kinds[k]!;
    ops.push({ kind, text: texts[k]!, ob, nb });
    if (kind !== "add") ob++;
    if (kind !== "del") nb++;
  }
  return ops;
}

/**
 * A unified patch turning `before` into `after` (`context` lines around changes; default 3).
 * Empty string when there is no change.
 */
export function diffFromStrings(path: string, before: string, after: string, context = 3): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = lineOps(a, b);
  const out: string[] = [];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === "ctx") {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let j = i;
    while (j < ops.length) {
      if (ops[j]!.kind !== "ctx") {
        j++;
        continue;
      }
      let k = j;
      while (k < ops.length && ops[k]!.kind === "ctx") k++;
      if (k >= ops.length || k - j > 2 * context) break;
      j = k;
    }
    const stop = Math.min(ops.length, j + context);
    const hunk = ops.slice(start, stop);
    const first = hunk[0]!;
    const oldCount = hunk.filter((o) => o.kind !== "add").length;
    const newCount = hunk.filter((o) => o.kind !== "del").length;
    const oldStart = oldCount > 0 ? first.ob + 1 : first.ob;
    const newStart = newCount > 0 ? first.nb + 1 : first.nb;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const o of hunk) out.push((o.kind === "add" ? "+" : o.kind === "del" ? "-" : " ") + o.text);
    i = stop;
  }
  if (out.length === 0) return "";
  const p = path || "file";
  return (
    [before === "" ? "--- /dev/null" : `--- a/${p}`, after === "" ? "+++ /dev/null" : `+++ b/${p}`, ...out].join("\n") +
    "\n"
  );
}

/* ----------------------------------------------------------------------------------- component */

type Hl = ReturnType<typeof useHighlight>;

/** Review comments on a diff: the saved ones of this file (and turn), and what picking lines does. */
export interface DiffReview {
  comments: readonly ReviewComment[];
  onSave(anchor: ReviewAnchor, text: string): void;
  onEdit(id: string, text: string): void;
  onDrop(id: string): void;
}

/** The column lines are picked in: a side of the split layout, or the unified one ("both"). */
type PickColumn = ReviewSide | "both";

/** Picked lines: rows `from`…`to` of the shown layout, in one column (the editor opens under `to`). */
interface LinePick {
  column: PickColumn;
  anchor: number;
  from: number;
  to: number;
  layout: "unified" | "split";
  patch: string;
}

const isLineRow = (r: DiffRow): r is LineRow => r.kind === "add" || r.kind === "del" || r.kind === "ctx";

/** The line number a picked row is named by, for its button's accessible name. */
function pickName(row: LineRow, column: PickColumn): string {
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
function Gutter({
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

const PICKED = "bg-accent/15 shadow-[inset_2px_0_0_var(--sb-accent)]";

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

function SplitBody({
  rows,
  showNumbers,
  numW,
  oldHl,
  newHl,
  picked,
  onPick,
  below,
}: {
  rows: ReturnType<typeof toSplitRows>;
  showNumbers: boolean;
  numW: string;
  oldHl: Hl;
  newHl: Hl;
  picked(i: number, side: ReviewSide): boolean;
  onPick: ((i: number, side: ReviewSide, extend: boolean) => void) | undefined;
  /** What shows under row `i` (the comment editor, saved comments). */
  below(i: number): ReactNode;
}) {
  return (
    <div className="py-1 font-mono" data-layout="split">
      {rows.map((r, i) => {
        if (r.kind === "hunk") {
          const prev = rows[i - 1];
          if (!r.context && (i === 0 || prev?.kind === "file")) return null;
          return (
            <div
              key={i}
              className="my-0.5 flex h-[20px] select-none items-center whitespace-pre bg-raised/60 px-3 text-[11.5px] text-faint"
              title={r.text}
            >
              {r.context || "⋯"}
            </div>
          );
        }
        if (r.kind === "file" || r.kind === "note") {
          return (
            <div
              key={i}
              className={cx(
                "flex select-none whitespace-pre px-3 text-faint",
                r.kind === "file" && "mt-1 font-sans font-medium text-muted",
                r.kind === "note" && "text-[11.5px] italic",
              )}
            >
              {r.text}
            </div>
          );
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
                picked={picked(i, "old")}
                onPick={onPick ? (extend) => onPick(i, "old", extend) : undefined}
              />
              <SplitCell
                row={r.right}
                side="new"
                showNumbers={showNumbers}
                numW={numW}
                hl={newHl}
                at={i}
                picked={picked(i, "new")}
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

export function DiffStat({
  additions,
  deletions,
  className,
}: {
  additions: number;
  deletions: number;
  className?: string;
}) {
  return (
    <span className={cx("inline-flex shrink-0 items-center gap-1.5 font-mono text-[11.5px] tabular-nums", className)}>
      {additions > 0 || deletions === 0 ? <span className="text-add">+{additions}</span> : null}
      {deletions > 0 ? <span className="text-del">−{deletions}</span> : null}
    </span>
  );
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
  layout?: "unified" | "split";
  /** Draw without border and rounding (inside another frame). */
  bare?: boolean;
  /** Lines take review comments: pick a line (or range) by its number, write, save. */
  review?: DiffReview;
  className?: string;
}

const ROW_BG: Record<DiffRowKind, string> = { add: "bg-add-bg", del: "bg-del-bg", ctx: "" };
const SIGN_FG: Record<DiffRowKind, string> = { add: "text-add", del: "text-del", ctx: "text-faint" };

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
  const [pickState, setPick] = useState<LinePick | null>(null);
  const draft = useRef("");
  const pick = pickState && pickState.layout === layout && pickState.patch === patch ? pickState : null;
  const onPick = review
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
    return parsed.rows.slice(p.from, p.to + 1).filter(isLineRow);
  };
  const anchor = pick && path ? anchorFor(pickedLines(pick), pick.column) : undefined;
  const closeEditor = () => {
    // The keyboard goes back to the line number the pick started on.
    const back = pick ? `${pick.column}:${pick.anchor}` : undefined;
    setPick(null);
    draft.current = "";
    if (back) {
      requestAnimationFrame(() =>
        ref.current?.querySelector<HTMLElement>(`[data-pick-at="${back}"]`)?.focus({ preventScroll: true }),
      );
    }
  };
  // Where each saved comment shows: under the row of its last line, in the layout shown.
  const commentsAt = useMemo(() => {
    const at = new Map<number, ReviewComment[]>();
    if (!review) return at;
    for (const c of review.comments) {
      const n = c.end ?? c.start;
      if (n === undefined) continue;
      let found = -1;
      if (split) {
        found = split.findLastIndex(
          (r) => r.kind === "pair" && (c.side === "new" ? r.right?.newNo === n : r.left?.oldNo === n),
        );
      } else {
        found = parsed.rows.findLastIndex(
          (r) =>
            isLineRow(r) && (c.side === "new" ? r.kind !== "del" && r.newNo === n : r.kind !== "add" && r.oldNo === n),
        );
      }
      if (found >= 0) at.set(found, [...(at.get(found) ?? []), c]);
    }
    return at;
  }, [review, split, parsed]);
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
  const isPicked = (i: number, column: PickColumn) =>
    pick !== null && pick.column === column && i >= pick.from && i <= pick.to;

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
        <SplitBody
          rows={splitRows}
          showNumbers={showNumbers}
          numW={numW}
          oldHl={oldHl}
          newHl={newHl}
          picked={isPicked}
          onPick={onPick}
          below={(i) => below(i, false)}
        />
      ) : (
        <div className="overflow-x-auto py-1 font-mono">
          <div className="w-max min-w-full">
            {rows.map((r, i) => {
              if (r.kind === "hunk") {
                // A hunk shows its context text (e.g. the enclosing function); a bare first hunk shows nothing.
                const prev = rows[i - 1];
                if (!r.context && (i === 0 || prev?.kind === "file")) return null;
                return (
                  <div
                    key={i}
                    className="my-0.5 flex h-[20px] select-none items-center whitespace-pre bg-raised/60 px-3 text-[11.5px] text-faint"
                    title={r.text}
                  >
                    {r.context || "⋯"}
                  </div>
                );
              }
              if (r.kind === "file" || r.kind === "note") {
                return (
                  <div
                    key={i}
                    className={cx(
                      "flex select-none whitespace-pre px-3 text-faint",
                      r.kind === "file" && "mt-1 font-sans font-medium text-muted",
                      r.kind === "note" && "text-[11.5px] italic",
                    )}
                  >
                    {r.text}
                  </div>
                );
              }
              const toks =
                r.kind === "del" ? tokensFor(oldHl, r.oi ?? -1, r.text) : tokensFor(newHl, r.ni ?? -1, r.text);
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
                          <span
                            className={cx(
                              "shrink-0 select-none pr-1 text-right",
                              r.kind === "del" ? "text-del/70" : "text-faint/60",
                            )}
                            style={{ width: numW }}
                            aria-hidden
                          >
                            {r.kind === "add" ? "" : r.oldNo}
                          </span>
                          <span
                            className={cx(
                              "shrink-0 select-none pr-1 text-right",
                              r.kind === "add" ? "text-add/70" : "text-faint/60",
                            )}
                            style={{ width: numW }}
                            aria-hidden
                          >
                            {r.kind === "del" ? "" : r.newNo}
                          </span>
                        </>
                      ) : null}
                      <span className={cx("w-6 shrink-0 select-none text-center", SIGN_FG[r.kind])} aria-hidden>
                        {r.kind === "add" ? "+" : r.kind === "del" ? "−" : " "}
                      </span>
                    </Gutter>
                    <span className="shiki min-w-0 flex-1 whitespace-pre pr-4">
                      {renderLine(r.text, toks) || "\u200b"}
                    </span>
                  </div>
                  {below(i, true)}
                </Fragment>
              );
            })}
          </div>
        </div>
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
