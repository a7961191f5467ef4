import { EmptyQuery } from "@/lib/api";
import { readQuery, route } from "@/server/http";
import { openLiveStream } from "@/server/live";
import { withPublicHeaders } from "@/server/shares/public";

export const dynamic = "force-dynamic";

/**
 * The live stream of share pages: one per viewer's browser however many shared sessions it has
 * open. Public; it carries shares only, each authorized by its token when it is added.
 */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return withPublicHeaders(await openLiveStream(req, "share"));
});
