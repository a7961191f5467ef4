import { EmptyBody, EmptyQuery, PatchSessionBody } from "@/lib/api";
import { capability } from "@/server/capability";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const { backends, lineage } = await app();
  return json(lineage.decorate(backendId, await backends.require(backendId).getSession(sessionId)));
});

export const PATCH = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, PatchSessionBody);
  const { backends, hub, lineage } = await app();
  const adapter = backends.require(backendId);
  const session = lineage.decorate(
    backendId,
    await capability(adapter, "rename", adapter.renameSession)(sessionId, body.title),
  );
  hub.publish(backendId, sessionId, { type: "session.updated", session });
  return json(session);
});

export const DELETE = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  const { backends, hub, lineage, attribution } = await app();
  const adapter = backends.require(backendId);
  await capability(adapter, "delete", adapter.deleteSession)(sessionId);
  hub.drop(backendId, sessionId);
  lineage.forget(backendId, sessionId);
  attribution.forget(backendId, sessionId);
  return json({ ok: true });
});
