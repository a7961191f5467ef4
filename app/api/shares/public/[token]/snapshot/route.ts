import { EmptyQuery } from "@/lib/api";
import { json, readQuery } from "@/server/http";
import { shareClient, shares } from "@/server/shares";
import { publicRoute } from "@/server/shares/public";

export const dynamic = "force-dynamic";

/** The shared session, redacted and scoped. Needs only the share token. */
export const GET = publicRoute(async (req, token) => {
  readQuery(req, EmptyQuery);
  const svc = await shares();
  const share = svc.resolve(token, shareClient(req.headers));
  const snapshot = await svc.snapshot(share, token);
  // Another console asking for a share whose session runs here counts the view itself.
  if (!svc.fromPeer(req)) svc.touch(share);
  return json(snapshot);
});
