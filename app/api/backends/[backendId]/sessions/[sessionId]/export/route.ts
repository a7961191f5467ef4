import { ExportQuery } from "@/lib/api";
import { readQuery, route } from "@/server/http";
import { app, type SessionParams } from "@/server/app-access";
import { exportResponse } from "@/server/sessions/export";

export const dynamic = "force-dynamic";

/** The whole session as a download: `?format=md` (transcript, default) or `?format=json`. */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const { format } = readQuery(req, ExportQuery);
  return exportResponse(await app(), backendId, sessionId, format);
});
