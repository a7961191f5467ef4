import { DeleteSessionQuery, EmptyBody, EmptyQuery, PatchSessionBody } from "@/lib/api";
import { capability } from "@/server/capability";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { beforeDelete } from "@/server/workspace/sessions";

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

/** `?worktree=remove` also removes the session's worktree (kept otherwise), `&branch=delete` its branch. */
export const DELETE = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const q = readQuery(req, DeleteSessionQuery);
  await readBody(req, EmptyBody);
  const console = await app();
  const { backends, hub, lineage, attribution } = console;
  const adapter = backends.require(backendId);
  const deleteSession = capability(adapter, "delete", adapter.deleteSession);
  // The worktree first: one holding uncommitted changes is refused (409), and the session stays.
  const worktree = await beforeDelete(console, backendId, sessionId, q);
  await deleteSession(sessionId);
  hub.drop(backendId, sessionId);
  lineage.forget(backendId, sessionId);
  attribution.forget(backendId, sessionId);
  return json({ ok: true, ...(worktree ? { worktree } : {}) });
});
