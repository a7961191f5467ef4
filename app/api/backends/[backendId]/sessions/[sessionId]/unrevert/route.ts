import { capability } from "@/server/capability";
import { json, route } from "@/server/http";
import { app, type SessionParams } from "@/server/routes";

export const dynamic = "force-dynamic";

/** Cancel a pending revert: files and messages come back. */
export const POST = route<SessionParams>(async (_req, { backendId, sessionId }) => {
  const { backends, hub } = await app();
  const adapter = backends.require(backendId);
  const session = await capability(adapter, "revert", adapter.unrevert)(sessionId);
  hub.publish(backendId, sessionId, { type: "session.updated", session });
  return json(session);
});
