import { CompareDiffQuery } from "@/lib/compare-api";
import { app } from "@/server/app-access";
import { json, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** One file's change in every session of the group against their common base `{items}`. */
export const GET = route<{ compareId: string }>(async (req, { compareId }) => {
  const q = readQuery(req, CompareDiffQuery);
  return json({ items: await (await app()).compare.diff(compareId, q.path) });
});
