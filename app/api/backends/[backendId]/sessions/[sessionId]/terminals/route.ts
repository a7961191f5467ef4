import { EmptyQuery } from "@/lib/api";
import { TerminalOpenBody } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";
import { sessionDir } from "@/server/workspace/sessions";

export const dynamic = "force-dynamic";

/** Opens a terminal in the session's directory `{cols, rows}` → 201 `{id}` (docs/workspace.md). */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, TerminalOpenBody);
  const console = await app();
  const dir = await sessionDir(console, backendId, sessionId);
  const t = console.terminals.open(backendId, sessionId, dir, body);
  return json({ id: t.id }, { status: 201 });
});

/** The session's terminals (open, or whose shell exited) `{items}`. */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const items = (await app()).terminals.list(backendId, sessionId).map(({ backendId: _b, sessionId: _s, ...t }) => t);
  return json({ items });
});
