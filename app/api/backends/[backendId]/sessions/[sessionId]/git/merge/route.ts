import { EmptyBody, EmptyQuery } from "@/lib/api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readBody, readQuery, route } from "@/server/http";
import { mergeIntoBase } from "@/server/workspace/git";
import { sessionDir } from "@/server/workspace/sessions";

export const dynamic = "force-dynamic";

/** The worktree's branch into the branch it was made from, in the main checkout; a conflict is 409 with the files. */
export const POST = route<SessionParams>(async (req, { backendId, sessionId }) => {
  readQuery(req, EmptyQuery);
  await readBody(req, EmptyBody);
  return json(await mergeIntoBase(await sessionDir(await app(), backendId, sessionId)));
});
