import { TerminalStreamQuery } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { readQuery, resumeCursor, route } from "@/server/http";
import { terminalStream } from "@/server/workspace/terminal-http";

export const dynamic = "force-dynamic";

/**
 * The terminal's output as Server-Sent Events: `data: {"data": "<text>"}` with the chunk's number as
 * its id, resumable from `Last-Event-ID` (or `?after=`) while the bounded buffer holds it; the last
 * frame is `{"exit": code}` once the shell has exited.
 */
export const GET = route<SessionParams & { terminalId: string }>(async (req, { backendId, sessionId, terminalId }) => {
  const q = readQuery(req, TerminalStreamQuery);
  const after = resumeCursor(req, q.after) ?? 0;
  return terminalStream(req, (await app()).terminals.get(backendId, sessionId, terminalId), after);
});
