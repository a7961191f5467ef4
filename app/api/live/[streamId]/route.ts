import { EmptyQuery } from "@/lib/api";
import { readQuery, route } from "@/server/http";
import { putLiveSubscriptions } from "@/server/live";

export const dynamic = "force-dynamic";

/** Sets what a live stream carries: the whole set of subscriptions by key, one result per key. */
export const PUT = route<{ streamId: string }>(async (req, { streamId }) => {
  readQuery(req, EmptyQuery);
  return putLiveSubscriptions(req, "console", streamId);
});
