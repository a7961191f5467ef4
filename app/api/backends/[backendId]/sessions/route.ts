import { CreateSessionBody, EmptyQuery, ListSessionsQuery } from "@/lib/api";
import { resolveWorkspaceDir } from "@/server/auth/workspace";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

export const GET = route<BackendParams>(async (req, { backendId }) => {
  const q = readQuery(req, ListSessionsQuery);
  const { backends, lineage } = await app();
  const page = await backends.require(backendId).listSessions(q);
  return json({ ...page, items: page.items.map((s) => lineage.decorate(backendId, s)) });
});

export const POST = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, CreateSessionBody);
  const { backends, hub, config, attribution, lineage } = await app();
  const adapter = backends.require(backendId);
  // Realpath'd and kept inside the workspace roots, symlinks included (403 otherwise).
  if (body.directory !== undefined) body.directory = await resolveWorkspaceDir(body.directory, config.workspaceRoots);
  const created = await adapter.createSession(body);
  const who = requestPerson(req);
  if (who) attribution.sessionCreated(backendId, created.id, who);
  const session = lineage.decorate(backendId, created);
  hub.publish(backendId, session.id, { type: "session.updated", session });
  return json(session, { status: 201 });
});
