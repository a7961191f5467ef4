import { EmptyBody, EmptyQuery, PatchSessionBody } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/routes";

export const dynamic = "force-dynamic";

export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const { backends } = await app();
  return json(await backends.require(backendId).getSession(sessionId));
});

export const PATCH = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, PatchSessionBody);
  const { backends, hub } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.renameSession) throw ApiError.conflict(`${adapter.info().label} cannot rename sessions`);
  const session = await adapter.renameSession(sessionId, body.title);
  hub.publish(backendId, sessionId, { type: "session.updated", session });
  return json(session);
});

export const DELETE = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  const { backends, hub } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.deleteSession) throw ApiError.conflict(`${adapter.info().label} cannot delete sessions`);
  await adapter.deleteSession(sessionId);
  hub.drop(backendId, sessionId);
  return json({ ok: true });
});
