import { EmptyQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { sessionTree } from "@/server/sessions/branching";

export const dynamic = "force-dynamic";

/** The session's family: `{root: TreeNode, currentId, truncated?}` (forks and subagent children). */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  return json(await sessionTree(await app(), backendId, sessionId));
});
