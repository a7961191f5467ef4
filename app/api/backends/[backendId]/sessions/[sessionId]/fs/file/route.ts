import { FsFileQuery } from "@/lib/workspace-api";
import { app, type SessionParams } from "@/server/app-access";
import { json, readQuery, route } from "@/server/http";
import { readText } from "@/server/workspace/files";
import { sessionDir } from "@/server/workspace/sessions";

export const dynamic = "force-dynamic";

/** A file of the session's directory, read-only `?path=` → `{path, size, text? | binary? | tooLarge?}` (at most 1 MB). */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const q = readQuery(req, FsFileQuery);
  return json(await readText(await sessionDir(await app(), backendId, sessionId), q.path));
});
