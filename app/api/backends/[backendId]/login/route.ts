import { BackendLoginBody, EmptyQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { json, readBody, readQuery, route } from "@/server/http";
import { app, type BackendParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/**
 * Starts a sign-in the agent runs (`{methodId}`: an ACP device-code login, `authMethods[].signIn`).
 * Answers the backend at once; the method's `login` then carries the link and the code to enter, and
 * the backend turns ready when the user has finished there.
 */
export const POST = route<BackendParams>(async (req, { backendId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, BackendLoginBody);
  const { backends } = await app();
  const adapter = backends.require(backendId);
  if (!adapter.signIn) throw ApiError.conflict(`${adapter.info().label} has no sign-in the console can run`);
  await adapter.signIn(body.methodId);
  return json(backends.describe(adapter));
});
