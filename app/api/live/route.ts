import { EmptyQuery } from "@/lib/api";
import { readQuery, route } from "@/server/http";
import { openLiveStream } from "@/server/live";

export const dynamic = "force-dynamic";

/**
 * A browser's one live connection, shared by all its console tabs (docs/architecture.md, "One live
 * stream per browser"). It opens empty with an `event: mux.open` frame that names the stream; what it
 * carries — the global channel, sessions, shares — is set with `PUT /api/live/:streamId`.
 * A running console serves this path before Next's request pipeline (server/direct-streams.ts); this
 * handler answers what that leaves to Next.
 */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return openLiveStream(req, "console");
});
