import { EmptyQuery } from "@/lib/api";
import { MAX_PUSH_BODY_BYTES, PushTestBody } from "@/lib/push-api";
import { json, readBody, readQuery, route } from "@/server/http";
import { push, pushViewer } from "@/server/push";

export const dynamic = "force-dynamic";

/** Send a test push to one device; the answer says what its push service said. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const { id } = await readBody(req, PushTestBody, MAX_PUSH_BODY_BYTES);
  return json(await (await push()).test(id, pushViewer(req)));
});
