/**
 * Parsing unified diff text into rows (add / del / context lines with their old and new numbers,
 * hunk headers, file marks, notes) and the text of each side, for the diff views. Pure (unit-tested
 * with split-rows.test.ts).
 */

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

/** A line row of a parsed diff: an added, removed or context line. */
export type LineRow = Extract<DiffRow, { kind: DiffRowKind }>;

export const isLineRow = (r: DiffRow): r is LineRow => r.kind === "add" || r.kind === "del" || r.kind === "ctx";
