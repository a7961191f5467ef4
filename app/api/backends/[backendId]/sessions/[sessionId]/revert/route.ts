import { EmptyQuery, RevertBody } from "@/lib/api";
import { capability } from "@/server/capability";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** Undo `messageId` and what follows: files are restored now, messages drop at the next prompt. */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, RevertBody);
  const { backends, hub } = await app();
  const adapter = backends.require(backendId);
  const session = await capability(adapter, "revert", adapter.revert)(sessionId, body.messageId);
  hub.publish(backendId, sessionId, { type: "session.updated", session });
  return json(session);
});
