import { EmptyQuery } from "@/lib/api";
import { TerminalResizeBody } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** The terminal's new size `{cols, rows}` → `{ok: true}`. */
export const POST = route<SessionParams & { terminalId: string }>(async (req, { backendId, sessionId, terminalId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, TerminalResizeBody);
  (await app()).terminals.get(backendId, sessionId, terminalId).resize(body.cols, body.rows);
  return json({ ok: true });
});
