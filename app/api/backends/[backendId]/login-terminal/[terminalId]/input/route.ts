import { EmptyQuery } from "@/lib/api";
import { TerminalInputBody } from "@/lib/workspace-api";
import { app, type BackendParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";
import { LOGIN_SCOPE } from "@/server/workspace/login-terminal";

export const dynamic = "force-dynamic";

/** Typed input `{data}` for the login terminal → `{ok: true}`. */
export const POST = route<BackendParams & { terminalId: string }>(async (req, { backendId, terminalId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, TerminalInputBody);
  (await app()).terminals.write(backendId, LOGIN_SCOPE, terminalId, body.data, "login");
  return json({ ok: true });
});
