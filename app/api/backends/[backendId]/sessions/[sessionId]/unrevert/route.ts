import { EmptyBody, EmptyQuery } from "@/lib/api";
import { capability } from "@/server/capability";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** Cancel a pending revert: files and messages come back. No body, or `{}`. */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  const { backends, hub } = await app();
  const adapter = backends.require(backendId);
  const session = await capability(adapter, "revert", adapter.unrevert)(sessionId);
  hub.publish(backendId, sessionId, { type: "session.updated", session });
  return json(session);
});
