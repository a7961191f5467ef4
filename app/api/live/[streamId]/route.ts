import { EmptyQuery, LiveSubscriptionsBody, type LiveSubscriptionsResult } from "@/lib/api";
import { authenticate, readCookie, SESSION_COOKIE } from "@/server/auth/console-auth";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { liveStreams, setSubscriptions } from "@/server/live";

export const dynamic = "force-dynamic";

/**
 * Sets what a live stream carries: the whole set of subscriptions by key. Keys already held with the
 * same spec stay as they are; new ones replay after their cursor. One result per key.
 */
export const PUT = route<{ streamId: string }>(async (req, { streamId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, LiveSubscriptionsBody);
  const stream = liveStreams().get(streamId);
  if (!stream) throw ApiError.notFound("No such live stream (it closed): open a new one");
  const loggedIn = authenticate(req.headers, readCookie(req.headers, SESSION_COOKIE)) !== undefined;
  const results = await setSubscriptions(stream, body.subscriptions, { loggedIn, headers: req.headers });
  return json({ results } satisfies LiveSubscriptionsResult);
});
