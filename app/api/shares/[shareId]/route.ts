import { EmptyBody, EmptyQuery } from "@/lib/api";
import { json, readBody, readQuery, route } from "@/server/http";
import { shares } from "@/server/shares";

export const dynamic = "force-dynamic";

/** Revoke a share: its page and stream answer 404 from now on; open streams are closed. */
export const DELETE = route<{ shareId: string }>(async (req, { shareId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  return json(await (await shares()).revokeAnywhere(shareId));
});
