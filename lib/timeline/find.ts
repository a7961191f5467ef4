/**
 * Find in session: which loaded messages contain a query, in timeline order. Pure; the timeline
 * (components/session/timeline.tsx) pages older history while a search wants more and highlights
 * the hits it renders with the CSS Custom Highlight API (no markup is ever built from the text).
 */
import type { Message } from "../model";

/** One occurrence of the query: the message and the occurrence's number inside that message. */
export interface FindHit {
  messageId: string;
  /** Index of the message in the searched list. */
  index: number;
  /** 0-based number of this occurrence inside the message's searchable text. */
  occurrence: number;
}

const texts = new WeakMap<Message, string>();

/** The text find looks at: what a message shows as prose (text blocks of every role), lower-cased. */
export function searchableText(m: Message): string {
  let t = texts.get(m);
  if (t === undefined) {
    t = m.blocks
      .map((b) => (b.kind === "text" ? b.text : ""))
      .join("\n")
      .toLowerCase();
    texts.set(m, t);
  }
  return t;
}

/** Every occurrence of `query` (case-insensitive, non-overlapping) in `messages`, oldest first. */
export function findHits(messages: readonly Message[], query: string, limit = 10_000): FindHit[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const hits: FindHit[] = [];
  for (let index = 0; index < messages.length && hits.length < limit; index++) {
    const m = messages[index]!;
    const text = searchableText(m);
    let from = 0;
    let occurrence = 0;
    for (;;) {
      const at = text.indexOf(q, from);
      if (at < 0) break;
      hits.push({ messageId: m.id, index, occurrence: occurrence++ });
      from = at + q.length;
    }
  }
  return hits;
}

/** Ranges of every occurrence of `query` in the text nodes under `root` (case-insensitive). */
export function textRanges(root: Node, query: string): Range[] {
  const q = query.trim().toLowerCase();
  if (!q || typeof document === "undefined") return [];
  const out: Range[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.nodeValue ?? "").toLowerCase();
    let from = 0;
    for (;;) {
      const at = text.indexOf(q, from);
      if (at < 0) break;
      const r = document.createRange();
      r.setStart(n, at);
      r.setEnd(n, at + q.length);
      out.push(r);
      from = at + q.length;
    }
  }
  return out;
}
