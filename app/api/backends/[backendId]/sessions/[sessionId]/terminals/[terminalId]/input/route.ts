import { EmptyQuery } from "@/lib/api";
import { TerminalInputBody } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

/** Typed input `{data}` (at most 64 K characters a call) → `{ok: true}`. */
export const POST = route<SessionParams & { terminalId: string }>(async (req, { backendId, sessionId, terminalId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, TerminalInputBody);
  (await app()).terminals.write(backendId, sessionId, terminalId, body.data);
  return json({ ok: true });
});
