import { FileSearchQuery } from "@/lib/api";
import { json, readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { findSessionFiles } from "@/server/sessions/files";

export const dynamic = "force-dynamic";

/** `{items: string[], source}` — the session's workspace files matching `q`, for an `@` mention. */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const q = readQuery(req, FileSearchQuery);
  return json(await findSessionFiles(await app(), backendId, sessionId, q));
});
