import { EventsQuery } from "@/lib/api";
import { route, readQuery, resumeCursor } from "@/server/http";
import { sseResponse } from "@/server/hub/sse";
import { sessionChannel, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/**
 * SSE of timeline events: `id: <seq>`, resume with `Last-Event-ID` or `?after=<seq>` (docs/api.md).
 * For API clients; the console's pages carry sessions on their tab-shared live stream (`GET /api/live`).
 */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const after = resumeCursor(req, readQuery(req, EventsQuery).after);
  const channel = await sessionChannel(backendId, sessionId);
  return sseResponse({ signal: req.signal, open: (sink) => channel.subscribe(sink, after) });
});
