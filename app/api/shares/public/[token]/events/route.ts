import { EventsQuery } from "@/lib/api";
import { readQuery, resumeCursor } from "@/server/http";
import { acquireShareStream, shareClient, shareStreamIdleMs, shares } from "@/server/shares";
import { publicRoute } from "@/server/shares/public";

export const dynamic = "force-dynamic";

/**
 * The share's own SSE: redacted timeline events after `Last-Event-ID` (or `?after`) for a live
 * share, nothing for a frozen one; a `share.ended` frame, then the end of the stream, when the share
 * is revoked or expires. Share pages in a browser use the tab-shared live stream (`GET /api/live`).
 */
export const GET = publicRoute(async (req, token) => {
  const after = resumeCursor(req, readQuery(req, EventsQuery).after);
  const svc = await shares();
  const share = svc.resolve(token, shareClient(req.headers));
  // A slot of the public share stream quota (per address, and in all): 429 beyond; idle streams end.
  // Another console following a share whose session runs here has counted its viewer already.
  const release = svc.fromPeer(req) ? () => {} : await acquireShareStream(req.headers);
  try {
    return await svc.stream(share, after, req.signal, { idleMs: shareStreamIdleMs(), onEnd: release, token });
  } catch (err) {
    release();
    throw err;
  }
});
