import { EmptyQuery, SessionSettingBody } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/** Change one session option (mode, model, config option): `{id, value}`. */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, SessionSettingBody);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.setSessionOption) throw ApiError.conflict(`${adapter.info().label} has no session settings`);
  return json(await adapter.setSessionOption(sessionId, body.id, body.value));
});
