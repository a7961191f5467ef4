import { json, route } from "@/server/http";
import { app, type SessionParams } from "@/server/routes";
import { sessionTree } from "@/server/sessions/branching";

export const dynamic = "force-dynamic";

/** The session's family: `{root: TreeNode, currentId, truncated?}` (forks and subagent children). */
export const GET = route<SessionParams>(async (_req, { backendId, sessionId }) => {
  return json(await sessionTree(await app(), backendId, sessionId));
});
