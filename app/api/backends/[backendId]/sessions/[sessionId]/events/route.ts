import { EventsQuery } from "@/lib/api";
import { route, readQuery, resumeCursor } from "@/server/http";
import { sseResponse } from "@/server/hub/sse";
import { sessionEvents, type SessionParams } from "@/server/app-access";

export const dynamic = "force-dynamic";

/**
 * SSE of timeline events: `id: <seq>`, resume with `Last-Event-ID` or `?after=<seq>` (docs/api.md).
 * For API clients; the console's pages carry sessions on their tab-shared live stream (`GET /api/live`).
 * A running console serves this path before Next's request pipeline (server/direct-streams.ts); this
 * handler answers what that leaves to Next: refusals, errors, and requests signed by another replica.
 */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const after = resumeCursor(req, readQuery(req, EventsQuery).after);
  const open = await sessionEvents(backendId, sessionId, after);
  return sseResponse({ signal: req.signal, open });
});
