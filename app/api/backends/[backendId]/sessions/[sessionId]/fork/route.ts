import { EmptyQuery, ForkBody } from "@/lib/api";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { forkSession } from "@/server/sessions/branching";

export const dynamic = "force-dynamic";

/** Fork from a message (`{messageId}`) or whole (`{}`) → 201 Session with `forkedFrom`. */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, ForkBody);
  const session = await forkSession(await app(), backendId, sessionId, body.messageId, requestPerson(req));
  return json(session, { status: 201 });
});
