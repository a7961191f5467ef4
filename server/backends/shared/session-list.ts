import type { Session } from "@/lib/model";
import { ApiError } from "../../errors";

/**
 * One page of sessions for adapters that hold the whole list themselves (stdio agents): filtered
 * by a case-insensitive title search, newest first, paged with an opaque offset cursor.
 */
export function pageSessions(
  all: Session[],
  q: { search?: string; limit: number; cursor?: string },
): { items: Session[]; nextCursor?: string } {
  let list = all;
  if (q.search) {
    const needle = q.search.toLowerCase();
    list = list.filter((s) => s.title.toLowerCase().includes(needle));
  }
  list = [...list].sort((a, b) => b.updatedAt - a.updatedAt);
  const offset = q.cursor ? Number.parseInt(Buffer.from(q.cursor, "base64url").toString(), 10) || 0 : 0;
  const items = list.slice(offset, offset + q.limit);
  const more = list.length > offset + q.limit;
  return { items, ...(more ? { nextCursor: Buffer.from(String(offset + q.limit)).toString("base64url") } : {}) };
}

/**
 * The newest messages a session's first load holds, on every backend: what the hub keeps in memory
 * and the browser's snapshot carries. Older ones are paged in through the messages route as the
 * reader scrolls up. 40: on the 5,000-message session the browser held ~0.2 MB less after load than
 * with 100, and the snapshot was ~60% smaller (docs/performance.md).
 */
export const FIRST_PAGE_MESSAGES = 40;

/**
 * A session's first load for adapters that hold the whole transcript: its newest
 * `FIRST_PAGE_MESSAGES` messages and, when there are older ones, the cursor that pages them in
 * (a `LoadedSession`'s `messages` and `olderCursor`, to spread into it).
 */
export function firstPage<M extends { id: string }>(all: readonly M[]): { messages: M[]; olderCursor?: string } {
  const page = pageMessages(all, { limit: FIRST_PAGE_MESSAGES });
  return { messages: page.items, ...(page.nextCursor ? { olderCursor: page.nextCursor } : {}) };
}

/**
 * A page of a session's messages (chronological) for adapters that hold the whole transcript: the
 * `limit` messages before message `before` (the newest without it), and the cursor of the page
 * before that. An unknown `before` is a 404.
 */
export function pageMessages<M extends { id: string }>(
  all: readonly M[],
  q: { before?: string; limit: number },
): { items: M[]; nextCursor?: string } {
  const end = q.before === undefined ? all.length : all.findIndex((m) => m.id === q.before);
  if (end < 0) throw ApiError.notFound(`Unknown message: ${q.before}`);
  const start = Math.max(0, end - q.limit);
  return { items: all.slice(start, end), ...(start > 0 ? { nextCursor: all[start]!.id } : {}) };
}
