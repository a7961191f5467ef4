import { EventsQuery } from "@/lib/api";
import { ApiError } from "@/server/errors";
import { readQuery } from "@/server/http";
import { shareClient, shares } from "@/server/shares";
import { publicRoute } from "@/server/shares/public";

export const dynamic = "force-dynamic";

/**
 * The share's own SSE: redacted timeline events after `Last-Event-ID` (or `?after`) for a live
 * share, nothing for a frozen one; a `share.ended` frame, then the end of the stream, when the share
 * is revoked or expires.
 */
export const GET = publicRoute(async (req, token) => {
  const q = readQuery(req, EventsQuery);
  const header = req.headers.get("last-event-id");
  let after = q.after;
  if (header !== null && header.trim() !== "") {
    const n = Number(header);
    if (!Number.isSafeInteger(n) || n < 0) throw ApiError.badRequest("Last-Event-ID must be a non-negative integer");
    after = n;
  }
  const svc = await shares();
  const share = svc.resolve(token, shareClient(req.headers));
  return svc.stream(share, after, req.signal);
});
