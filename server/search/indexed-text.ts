/**
 * How much of one message the search index keeps (docs/search.md, "Limits"): its first 256 KiB of
 * UTF-8. PostgreSQL refuses a `tsvector` over 1 MiB, and a message's `tsvector` can be about three
 * times its text (every word distinct and short: a … z, aa …, each with its entry and position),
 * so a longer message failed the insert and with it the whole session's batch. Both engines index
 * the same prefix, so a search finds the same messages on either.
 */
export const MAX_INDEXED_BYTES = 256 * 1024;

/** `text` cut to at most `max` bytes of UTF-8, never inside a character (nor a surrogate pair). */
export function indexedPrefix(text: string, max = MAX_INDEXED_BYTES): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8 (a pair, 2 units, is 4).
  if (text.length * 3 <= max) return text;
  const out = new Uint8Array(max);
  // encodeInto writes whole characters only; `read` counts the UTF-16 units it took.
  const { read } = new TextEncoder().encodeInto(text, out);
  return read >= text.length ? text : text.slice(0, read);
}
