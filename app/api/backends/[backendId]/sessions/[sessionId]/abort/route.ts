import { EmptyBody, EmptyQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/routes";

export const dynamic = "force-dynamic";

export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.abort) throw ApiError.conflict(`${adapter.info().label} cannot stop a running turn`);
  await adapter.abort(sessionId);
  return json({ ok: true });
});
