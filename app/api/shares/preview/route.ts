import { EmptyQuery, SharePreviewBody } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { shares } from "@/server/shares";

export const dynamic = "force-dynamic";

/** What a share with this scope would show, and what redaction removes from it. */
export const POST = route(async (req) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, SharePreviewBody);
  const svc = await shares();
  if (svc.remote?.runsElsewhere(body.backendId)) return svc.remote.forward(req, body.backendId, body);
  return json(await svc.preview(body));
});
