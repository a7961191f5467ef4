import { EmptyQuery } from "@/lib/api";
import { GitCommitBody } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { principalOf } from "@/server/auth/console-auth";
import { json, readBody, readQuery, route } from "@/server/http";
import { commit } from "@/server/workspace/git";
import { sessionDir } from "@/server/workspace/sessions";

export const dynamic = "force-dynamic";

/** Commits what is staged: as the person who pressed Commit when they signed in with an e-mail, else the workspace's git identity. */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  const body = await readBody(req, GitCommitBody);
  const me = principalOf(req.headers);
  const author =
    me?.via === "oidc" && me.user.email ? { name: me.user.name || me.user.email, email: me.user.email } : undefined;
  return json(await commit(await sessionDir(await app(), backendId, sessionId), body.message, author));
});
