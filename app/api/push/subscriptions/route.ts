import { EmptyQuery } from "@/lib/api";
import { MAX_PUSH_BODY_BYTES, PushSubscriptionBody, type PushDeviceList } from "@/lib/push-api";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";
import { push, pushViewer } from "@/server/push";

export const dynamic = "force-dynamic";

/** The devices pushes go to (never their keys): the asker's own; every device for the console token. */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  return json({ items: (await push()).list(pushViewer(req)) } satisfies PushDeviceList, {
    headers: { "cache-control": "no-store" },
  });
});

/** Subscribe a device: the browser's `PushSubscription.toJSON()` plus an optional label. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, PushSubscriptionBody, MAX_PUSH_BODY_BYTES);
  const { id, created } = (await push()).subscriptions.add(body, Date.now(), requestPerson(req));
  return json({ id }, { status: created ? 201 : 200 });
});
