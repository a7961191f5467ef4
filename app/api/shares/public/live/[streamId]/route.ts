import { EmptyQuery } from "@/lib/api";
import { readQuery, route } from "@/server/http";
import { putLiveSubscriptions } from "@/server/live";
import { withPublicHeaders } from "@/server/shares/public";

export const dynamic = "force-dynamic";

/** Sets which shares a share page's live stream carries (`{type:"share", token, after}` only). */
export const PUT = route<{ streamId: string }>(async (req, { streamId }) => {
  readQuery(req, EmptyQuery);
  return withPublicHeaders(await putLiveSubscriptions(req, "share", streamId));
});
