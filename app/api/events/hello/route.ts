import { EmptyQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { readGlobalHello } from "@/server/live";

export const dynamic = "force-dynamic";

/** The cross-session state a tab starts from, with the seq to follow the global channel after. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json(await readGlobalHello(), { headers: { "cache-control": "no-store" } });
});
