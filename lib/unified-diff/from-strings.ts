/**
 * `diffFromStrings`, a tiny line differ for tools that carry before/after text but no patch (edit,
 * write): a unified patch from two texts. Pure.
 */
import type { DiffRowKind } from "./parse";

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
