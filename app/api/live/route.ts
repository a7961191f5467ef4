import { EmptyQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { readQuery, route } from "@/server/http";
import { sseResponse } from "@/server/hub/sse";
import { liveStreams } from "@/server/live";

export const dynamic = "force-dynamic";

/**
 * A browser's one live connection, shared by all its tabs (docs/architecture.md, "One live stream
 * per browser"). It opens empty with an `event: mux.open` frame that names the stream; what it
 * carries is then set with `PUT /api/live/:streamId`. Public like the share routes: a share viewer has
 * no login, so each subscription is authorized when it is added.
 */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  const registry = liveStreams();
  let refused = false;
  const res = sseResponse({
    signal: req.signal,
    open: (sink) => {
      const stream = registry.open(sink);
      if (!stream) {
        refused = true;
        sink.close();
        return () => {};
      }
      return () => registry.close(stream.id);
    },
  });
  if (refused) throw new ApiError("rate_limited", "Too many live streams are open", { retryAfter: 5 });
  return res;
});
