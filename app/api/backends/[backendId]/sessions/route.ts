import { CreateSessionBody, EmptyQuery, ListSessionsQuery } from "@/lib/api";
import { json, readBody, readQuery, requestPerson, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";
import { createSession } from "@/server/workspace/sessions";

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
  const console = await app();
  // The directory realpath'd and kept inside the workspace roots; with `worktree`, a worktree of its own.
  const created = await createSession(console, backendId, body);
  // Who created it (docs/people.md, "Attribution"), on the answer as on every later read.
  const who = requestPerson(req);
  if (who) console.attribution.sessionCreated(backendId, created.id, who);
  const session = console.lineage.decorate(backendId, created);
  const { hub } = console;
  hub.publish(backendId, session.id, { type: "session.updated", session });
  return json(session, { status: 201 });
});
