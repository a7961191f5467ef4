import { EmptyQuery } from "@/lib/api";
import { TerminalResizeBody } from "@/lib/workspace-api";
import { app, type BackendParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";
import { LOGIN_SCOPE } from "@/server/workspace/login-terminal";

export const dynamic = "force-dynamic";

/** The login terminal's new size `{cols, rows}` → `{ok: true}`. */
export const POST = route<BackendParams & { terminalId: string }>(async (req, { backendId, terminalId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, TerminalResizeBody);
  (await app()).terminals.get(backendId, LOGIN_SCOPE, terminalId, "login").resize(body.cols, body.rows);
  return json({ ok: true });
});
