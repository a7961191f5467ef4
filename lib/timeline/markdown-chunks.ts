/**
 * Splits markdown into top-level chunks (components/timeline/markdown.tsx renders and memoizes
 * each one), and re-splits only the open tail of a text that grew.
 */
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;

export interface MarkdownChunk {
  text: string;
  /** Offset of the chunk's first character in the whole text. */
  start: number;
}

/**
 * Splits markdown into top-level chunks at blank lines that are outside fenced code and not
 * followed by indented text (which would continue a list item or an indented block).
 */
export function splitChunks(text: string, base = 0): MarkdownChunk[] {
  const lines = text.split("\n");
  const chunks: MarkdownChunk[] = [];
  let cur: string[] = [];
  let curStart = 0;
  let offset = 0;
  let fence: { ch: string; len: number } | null = null;
  const push = (line: string, at: number) => {
    if (cur.length === 0) curStart = at;
    cur.push(line);
  };
  for (let i = 0; i < lines.length; i++, offset += lines[i - 1]!.length + 1) {
    const line = lines[i]!;
    const m = FENCE_RE.exec(line);
    if (fence) {
      if (m && m[1]![0] === fence.ch && m[1]!.length >= fence.len && line.trim() === m[1]) fence = null;
      push(line, offset);
      continue;
    }
    if (m) {
      fence = { ch: m[1]![0]!, len: m[1]!.length };
      push(line, offset);
      continue;
    }
    if (line.trim() === "") {
      const next = lines[i + 1];
      const continues = next !== undefined && /^(\s{2,}|\t)\S/.test(next);
      if (cur.length > 0 && !continues) {
        chunks.push({ text: cur.join("\n"), start: base + curStart });
        cur = [];
        continue;
      }
    }
    if (cur.length === 0 && line.trim() === "") continue;
    push(line, offset);
  }
  if (cur.length > 0) chunks.push({ text: cur.join("\n"), start: base + curStart });
  return chunks;
}

export function splitMarkdownBlocks(text: string): string[] {
  return splitChunks(text).map((c) => c.text);
}

/**
 * The chunks of `text`, reusing `prev` when `text` only grew from `prev.text`: every chunk but the
 * last two is final (a later blank line or fence cannot change it), so only the text from the start
 * of the second-to-last chunk is split again. Finished chunks keep their identity and text, so their
 * memoized rendering is reused.
 */
export function splitIncremental(
  prev: { text: string; chunks: MarkdownChunk[] } | null,
  text: string,
): MarkdownChunk[] {
  if (!prev || prev.chunks.length < 3 || text.length < prev.text.length || !text.startsWith(prev.text))
    return splitChunks(text);
  const keep = prev.chunks.slice(0, -2);
  const from = prev.chunks[prev.chunks.length - 2]!.start;
  return keep.concat(splitChunks(text.slice(from), from));
}
