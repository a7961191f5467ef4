import { SearchQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { app } from "@/server/app-access";
import { ftsQuery } from "@/server/search/query";

export const dynamic = "force-dynamic";

/** Full-text search over every session the console has indexed (docs/search.md). */
export const GET = route(async (req) => {
  const q = readQuery(req, SearchQuery);
  const match = ftsQuery(q.q);
  if (!match) return json({ items: [] });
  const { store } = await app();
  const offset = Number(q.cursor ?? 0);
  // One more than asked tells whether there is a next page.
  const hits = await store.search(match, {
    ...(q.backendId ? { backendId: q.backendId } : {}),
    limit: q.limit + 1,
    offset,
  });
  const items = hits.slice(0, q.limit);
  return json({ items, ...(hits.length > q.limit ? { nextCursor: String(offset + q.limit) } : {}) });
});
