import { EmptyBody, EmptyQuery } from "@/lib/api";
import { app, type SessionParams } from "@/server/app-access";
import { readBody, readQuery, route } from "@/server/http";

export const dynamic = "force-dynamic";

type Params = SessionParams & { terminalId: string };

/** Closes the terminal: the shell and every process it started are gone → 204. */
export const DELETE = route<Params>(async (req, { backendId, sessionId, terminalId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  await (await app()).terminals.close(backendId, sessionId, terminalId);
  return new Response(null, { status: 204 });
});
