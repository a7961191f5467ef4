import { EmptyBody, EmptyQuery } from "@/lib/api";
import { MAX_PUSH_BODY_BYTES, PushDevicePatch } from "@/lib/push-api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { push, pushViewer } from "@/server/push";

export const dynamic = "force-dynamic";

/** Change a device's label or whether finished turns are pushed to it. */
export const PATCH = route<{ subscriptionId: string }>(async (req, { subscriptionId }) => {
  readQuery(req, EmptyQuery);
  const patch = await readBody(req, PushDevicePatch, MAX_PUSH_BODY_BYTES);
  return json((await push()).subscriptions.update(subscriptionId, patch, pushViewer(req)));
});

/** Stop pushing to a device. */
export const DELETE = route<{ subscriptionId: string }>(async (req, { subscriptionId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody, MAX_PUSH_BODY_BYTES);
  if (!(await push()).subscriptions.remove(subscriptionId, pushViewer(req)))
    throw ApiError.notFound("No such push subscription");
  return new Response(null, { status: 204 });
});
