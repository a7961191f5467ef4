import { route } from "@/server/http";
import { sseResponse } from "@/server/hub/sse";
import { app } from "@/server/routes";

export const dynamic = "force-dynamic";

/** Cross-session SSE: backend states, session statuses and interrupts (badges, inbox, notifications). */
export const GET = route(async (req) => {
  const { hub, backends } = await app();
  const header = req.headers.get("last-event-id");
  const after = header && /^\d+$/.test(header) ? Number(header) : undefined;
  return sseResponse({
    signal: req.signal,
    open: (sink) => hub.subscribeGlobal(sink, { type: "hello", backends: backends.list(), interrupts: backends.pendingInterrupts() }, after),
  });
});
