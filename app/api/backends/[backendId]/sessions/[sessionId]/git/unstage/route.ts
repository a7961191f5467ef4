import { EmptyQuery } from "@/lib/api";
import { GitPathsBody } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";
import { unstage } from "@/server/workspace/git";
import { sessionDir } from "@/server/workspace/sessions";

export const dynamic = "force-dynamic";

/** `{ paths }` relative to the session's directory (403 for any outside it, and then none is touched). */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, GitPathsBody);
  return json(await unstage(await sessionDir(await app(), backendId, sessionId), body.paths));
});
