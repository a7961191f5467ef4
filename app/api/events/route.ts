import { EmptyQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { readQuery, route } from "@/server/http";
import { sseResponse } from "@/server/hub/sse";
import { app } from "@/server/routes";

export const dynamic = "force-dynamic";

/** Cross-session SSE: backend states, session statuses and interrupts (badges, inbox, notifications). */
export const GET = route(async (req) => {
  readQuery(req, EmptyQuery);
  const header = req.headers.get("last-event-id")?.trim();
  if (header && !/^\d{1,16}$/.test(header)) throw ApiError.badRequest("Last-Event-ID must be a non-negative integer");
  const after = header ? Number(header) : undefined;
  const { hub, backends } = await app();
  // A page (re)loaded: backends without replay re-read what is pending; what they find arrives on this stream.
  backends.refreshInterrupts();
  return sseResponse({
    signal: req.signal,
    open: (sink) => hub.subscribeGlobal(sink, { type: "hello", backends: backends.list(), interrupts: backends.pendingInterrupts() }, after),
  });
});
