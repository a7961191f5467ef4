import { EmptyBody, EmptyQuery } from "@/lib/api";
import { app, type BackendParams } from "@/server/app-access";
import { readBody, readQuery, route } from "@/server/http";
import { LOGIN_SCOPE } from "@/server/workspace/login-terminal";

export const dynamic = "force-dynamic";

/** Closes the login terminal: the command and every process it started are gone → 204. */
export const DELETE = route<BackendParams & { terminalId: string }>(async (req, { backendId, terminalId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  await (await app()).terminals.close(backendId, LOGIN_SCOPE, terminalId, "login");
  return new Response(null, { status: 204 });
});
