import type { Session } from "@/lib/model";

/**
 * One page of sessions for adapters that hold the whole list themselves (stdio agents): filtered
 * by a case-insensitive title search, newest first, paged with an opaque offset cursor.
 */
export function pageSessions(all: Session[], q: { search?: string; limit: number; cursor?: string }): { items: Session[]; nextCursor?: string } {
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
