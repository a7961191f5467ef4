import { EmptyBody, EmptyQuery } from "@/lib/api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";
import { push } from "@/server/workspace/git";
import { sessionDir } from "@/server/workspace/sessions";

export const dynamic = "force-dynamic";

/** The session's branch to its upstream's remote, else `origin` → `{ remote, branch, commit }`. */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  return json(await push(await sessionDir(await app(), backendId, sessionId)));
});
