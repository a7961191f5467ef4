import { EventsQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { route, readQuery } from "@/server/http";
import { sseResponse } from "@/server/hub/sse";
import { app, type SessionParams } from "@/server/routes";

export const dynamic = "force-dynamic";

/** SSE of timeline events: `id: <seq>`, resume with `Last-Event-ID` or `?after=<seq>` (docs/api.md, "Event stream"). */
export const GET = route<SessionParams>(async (req, { backendId, sessionId }) => {
  const q = readQuery(req, EventsQuery);
  const header = req.headers.get("last-event-id");
  let after = q.after;
  if (header !== null && header.trim() !== "") {
    const n = Number(header);
    if (!Number.isSafeInteger(n) || n < 0) throw ApiError.badRequest("Last-Event-ID must be a non-negative integer");
    after = n;
  }
  const { hub, backends } = await app();
  backends.require(backendId);
  const channel = await hub.open(backendId, sessionId);
  return sseResponse({ signal: req.signal, open: (sink) => channel.subscribe(sink, after) });
});
