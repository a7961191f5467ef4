import { BackendCredentialsBody, EmptyQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/**
 * Values for an `env_var` auth method of an ACP agent (`{methodId, vars}`): kept on the server, never
 * sent back (the backend lists them as set), passed to that agent only; the agent is restarted.
 */
export const POST = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, BackendCredentialsBody);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.setCredentials) throw ApiError.conflict(`${adapter.info().label} takes no credentials from the console`);
  await adapter.setCredentials(body.methodId, body.vars);
  return json(backends.describe(adapter));
});
