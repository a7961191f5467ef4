/**
 * A user's search text as an FTS5 query that cannot fail: the words (letters, digits and marks;
 * everything else separates them), each quoted as a phrase, all required, the last one also as a
 * prefix so results follow the typing. FTS5 operators (`NEAR`, `-`, `*`, quotes, parentheses) typed
 * by the user are words or separators here, never syntax. Undefined when there is no word to find.
 */
export const MAX_QUERY_CHARS = 500;
export const MAX_QUERY_WORDS = 12;

export function ftsQuery(input: string): string | undefined {
  const words = input.slice(0, MAX_QUERY_CHARS).match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  const kept = words.slice(0, MAX_QUERY_WORDS);
  if (!kept.length) return undefined;
  return kept.map((w, i) => (i === kept.length - 1 ? `"${w}"*` : `"${w}"`)).join(" ");
}
