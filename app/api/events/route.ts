import { EmptyQuery } from "@/lib/api";
import { readQuery, resumeCursor, route } from "@/server/http";
import { sseResponse } from "@/server/hub/sse";
import { globalHello } from "@/server/live";
import { app } from "@/server/app-access";

export const dynamic = "force-dynamic";

/**
 * Cross-session SSE: backend states, session statuses and interrupts (badges, inbox, notifications).
 * For API clients; the console's own pages carry the same events on their tab-shared live stream
 * (`GET /api/live`).
 * A running console serves this path before Next's request pipeline (server/direct-streams.ts); this
 * handler answers what that leaves to Next.
 */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  const after = resumeCursor(req);
  const { hub, backends } = await app();
  // A page (re)loaded: backends without replay re-read what is pending; what they find arrives on this stream.
  backends.refreshInterrupts();
  return sseResponse({
    signal: req.signal,
    open: (sink) => hub.subscribeGlobal(sink, globalHello(backends), after),
  });
});
