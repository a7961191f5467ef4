/**
 * Review comments on a turn's diff (issue 30): what a comment holds, how a picked range of diff
 * lines becomes one, how they are kept per backend + session in the browser, and the one prompt
 * "Send to agent" builds from them. Pure; how they are kept in `localStorage` is
 * lib/review-comments-storage.ts (it carries zod, so only the review panel loads it).
 */

/** Which side of the diff a comment's line numbers count: the file before the turn, or after it. */
export type ReviewSide = "old" | "new";

export interface ReviewComment {
  id: string;
  path: string;
  /** The turn (user message id) whose diff it was written on, when it was one turn's. */
  turnId?: string;
  side: ReviewSide;
  /** First and last line (1-based, on `side`); absent when the patch carried no line numbers. */
  start?: number;
  end?: number;
  /** The lines it is about, as shown; with `-`/`+`/space prefixes when `diff`. */
  code: string;
  /** The quoted lines mix removed and kept lines: `code` is a diff excerpt. */
  diff: boolean;
  text: string;
  createdAt: number;
}

/** One line of a diff as the review shows it (the line rows of lib/unified-diff/parse.ts). */
export interface ReviewDiffLine {
  kind: "add" | "del" | "ctx";
  text: string;
  oldNo?: number | undefined;
  newNo?: number | undefined;
}

export type ReviewAnchor = Pick<ReviewComment, "side" | "start" | "end" | "code" | "diff">;

const span = (nos: (number | undefined)[]) => {
  const known = nos.filter((n): n is number => n !== undefined);
  return known.length ? { start: Math.min(...known), end: Math.max(...known) } : {};
};

/**
 * What a picked range of lines is about. `pick` is the column it was picked in: one side of the
 * split layout, or `"both"` for the unified one (removed lines only → the old side; otherwise the
 * new side, quoting the removed lines too as a diff excerpt when there are any).
 */
export function anchorFor(lines: readonly ReviewDiffLine[], pick: ReviewSide | "both"): ReviewAnchor | undefined {
  if (lines.length === 0) return undefined;
  if (pick === "old" || pick === "new") {
    const no = (l: ReviewDiffLine) => (pick === "old" ? l.oldNo : l.newNo);
    return { side: pick, ...span(lines.map(no)), code: lines.map((l) => l.text).join("\n"), diff: false };
  }
  const onlyDel = lines.every((l) => l.kind === "del");
  if (onlyDel) return anchorFor(lines, "old");
  const hasDel = lines.some((l) => l.kind === "del");
  const kept = lines.filter((l) => l.kind !== "del");
  if (!hasDel) return anchorFor(kept, "new");
  const code = lines.map((l) => (l.kind === "add" ? "+" : l.kind === "del" ? "-" : " ") + l.text).join("\n");
  return { side: "new", ...span(kept.map((l) => l.newNo)), code, diff: true };
}

/** `path:12`, `path:12-14`, or `path` when there are no numbers; the old side says so. */
export function commentLabel(c: Pick<ReviewComment, "path" | "side" | "start" | "end">): string {
  if (c.start === undefined) return c.path;
  const range = c.end !== undefined && c.end !== c.start ? `${c.start}-${c.end}` : `${c.start}`;
  return `${c.path}:${range}${c.side === "old" ? " (before the change)" : ""}`;
}

/** A Markdown code fence longer than any run of backticks in `code` (at least three). */
export function fenceFor(code: string): string {
  let longest = 0;
  for (const m of code.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

const LANGS: Record<string, string> = {
  ts: "ts",
  tsx: "tsx",
  js: "js",
  jsx: "jsx",
  mjs: "js",
  cjs: "js",
  py: "python",
  rs: "rust",
  go: "go",
  rb: "ruby",
  java: "java",
  json: "json",
  md: "md",
  css: "css",
  html: "html",
  sh: "sh",
  yml: "yaml",
  yaml: "yaml",
  sql: "sql",
  c: "c",
  h: "c",
  cpp: "cpp",
};

function fenceLang(c: Pick<ReviewComment, "path" | "diff">): string {
  if (c.diff) return "diff";
  const ext = /\.([A-Za-z0-9]+)$/.exec(c.path)?.[1]?.toLowerCase();
  return (ext && LANGS[ext]) ?? "";
}

/** The prompt "Send to agent" sends: an intro, then each comment's place, quoted lines and text. */
export function buildReviewPrompt(comments: readonly ReviewComment[]): string {
  const n = comments.length;
  const parts = [`Please address ${n === 1 ? "this review comment" : `these ${n} review comments`} on your changes:`];
  comments.forEach((c, i) => {
    const fence = fenceFor(c.code);
    parts.push(
      [`${n > 1 ? `${i + 1}. ` : ""}${commentLabel(c)}`, `${fence}${fenceLang(c)}`, c.code, fence, c.text.trim()].join(
        "\n",
      ),
    );
  });
  return parts.join("\n\n");
}

/* ------------------------------------------------------------------------------------- edits */

/** Comments in reading order: by file, then line. */
export function sortComments(list: readonly ReviewComment[]): ReviewComment[] {
  return [...list].sort(
    (a, b) =>
      a.path.localeCompare(b.path) ||
      (a.start ?? 0) - (b.start ?? 0) ||
      (a.side === b.side ? 0 : a.side === "old" ? -1 : 1) ||
      a.createdAt - b.createdAt,
  );
}

export function addComment(list: readonly ReviewComment[], c: ReviewComment): ReviewComment[] {
  return sortComments([...list.filter((x) => x.id !== c.id), c]);
}

export function editComment(list: readonly ReviewComment[], id: string, text: string): ReviewComment[] {
  return list.map((c) => (c.id === id ? { ...c, text } : c));
}

export function dropComments(list: readonly ReviewComment[], ids: Iterable<string>): ReviewComment[] {
  const gone = new Set(ids);
  return list.filter((c) => !gone.has(c.id));
}

/* ----------------------------------------------------------------------------------- limits */

export const MAX_COMMENT_CHARS = 20_000;

export function newCommentId(): string {
  return typeof crypto !== "undefined" && "randomUUID" in crypto
    ? crypto.randomUUID()
    : `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}
