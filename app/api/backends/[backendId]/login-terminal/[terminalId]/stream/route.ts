import { TerminalStreamQuery } from "@/lib/workspace-api";
import { app, type BackendParams } from "@/server/app-access";
import { readQuery, resumeCursor, route } from "@/server/http";
import { LOGIN_SCOPE } from "@/server/workspace/login-terminal";
import { terminalStream } from "@/server/workspace/terminal-http";

export const dynamic = "force-dynamic";

/** The login terminal's output as Server-Sent Events (as a session terminal's: `{data}` frames, then `{exit}`). */
export const GET = route<BackendParams & { terminalId: string }>(async (req, { backendId, terminalId }) => {
  const q = readQuery(req, TerminalStreamQuery);
  const after = resumeCursor(req, q.after) ?? 0;
  return terminalStream(req, (await app()).terminals.get(backendId, LOGIN_SCOPE, terminalId, "login"), after);
});
