import { EmptyQuery, type StreamStats } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { openStreamCount } from "@/server/hub/sse";
import { liveStreamCount } from "@/server/live";

export const dynamic = "force-dynamic";

/** How many event streams the console holds open (the tab-sharing test counts them). */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json({ open: openStreamCount(), live: liveStreamCount() } satisfies StreamStats, {
    headers: { "cache-control": "no-store" },
  });
});
