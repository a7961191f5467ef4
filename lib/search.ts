import type { SearchHit } from "./api";

/** The words a hit's snippet found, in order (the text of each `matches` range). */
export function matchedWords(hit: Pick<SearchHit, "snippet" | "matches">): string[] {
  return hit.matches.map(([a, b]) => hit.snippet.slice(a, b));
}

/**
 * Where a hit opens: its session, with find in session on the first word found and the message to
 * go to (components/session/find-in-session.tsx reads both from the address).
 */
export function hitHref(hit: SearchHit): string {
  const word = matchedWords(hit)[0];
  const params = new URLSearchParams({ ...(word ? { find: word } : {}), message: hit.messageId });
  return `/sessions/${encodeURIComponent(hit.backendId)}/${encodeURIComponent(hit.sessionId)}?${params}`;
}

export interface SessionHits {
  backendId: string;
  sessionId: string;
  sessionTitle: string;
  hits: SearchHit[];
}

/** Hits grouped by session, the sessions in the order of their best hit. */
export function groupBySession(hits: SearchHit[]): SessionHits[] {
  const groups = new Map<string, SessionHits>();
  for (const h of hits) {
    const k = `${h.backendId}\u0000${h.sessionId}`;
    let g = groups.get(k);
    if (!g) {
      g = { backendId: h.backendId, sessionId: h.sessionId, sessionTitle: h.sessionTitle, hits: [] };
      groups.set(k, g);
    }
    g.hits.push(h);
  }
  return [...groups.values()];
}
