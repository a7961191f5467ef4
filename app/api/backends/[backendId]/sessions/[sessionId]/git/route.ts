import { EmptyQuery } from "@/lib/api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readQuery, route } from "@/server/http";
import { gitState } from "@/server/workspace/git";
import { sessionDir } from "@/server/workspace/sessions";

export const dynamic = "force-dynamic";

/** The session directory's branch, base, ahead/behind and changed files (docs/workspace.md). */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  return json(await gitState(await sessionDir(await app(), backendId, sessionId)));
});
