import { FsQuery } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readQuery, route } from "@/server/http";
import { listFolder } from "@/server/workspace/files";
import { sessionDir } from "@/server/workspace/sessions";

export const dynamic = "force-dynamic";

/** One folder of the session's directory `?path=` (relative; empty: the top) → `{path, entries, truncated?}`. */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const q = readQuery(req, FsQuery);
  return json(await listFolder(await sessionDir(await app(), backendId, sessionId), q.path));
});
