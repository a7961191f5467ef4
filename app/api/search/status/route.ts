import { EmptyQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { app } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** The search index per backend (what the backfill has read) and its setting. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  const { search } = await app();
  return json({ toolOutputs: search.toolOutputs, backends: await search.status() });
});
