import { headers } from "next/headers";
import { preload } from "react-dom";
import { SessionView } from "@/components/session/session-view";
import { sessionPath } from "@/lib/client/api-client";
import { PREVIEW_MESSAGES, type InitialSnapshot } from "@/lib/client/session-store";
import { snapshotForPage } from "@/server/app-access";

/**
 * How long the server render waits for the console's copy of the session before it goes without:
 * for a page load, up to 800 ms (the newest messages then arrive with the page); for a client-side
 * navigation (Next's `rsc` request), not at all — an open session comes along at once, a cold one
 * loads in the browser while the page already shows, so switching sessions never waits.
 */
const SNAPSHOT_CAP_MS = 800;

export default async function SessionPage({ params }: { params: Promise<{ backendId: string; sessionId: string }> }) {
  const { backendId, sessionId } = await params;
  const b = decodeURIComponent(backendId);
  const s = decodeURIComponent(sessionId);
  // Not for a link's prefetch: a sidebar full of links would load every session in it.
  const h = await headers();
  if (h.has("next-router-prefetch")) return <SessionView key={`${b}/${s}`} backendId={b} sessionId={s} />;
  // Time to the newest message: the page is rendered with the session's newest messages in it, on
  // screen before the scripts arrive; the browser's store starts from them. Only those travel in the
  // page (the whole snapshot would triple its size); the whole snapshot is preloaded while the
  // scripts load and replaces them after hydration (lib/client/session-store.ts asks for the very
  // same URL and gets the preloaded answer). When the console's copy is not there in time, the page
  // is rendered without it, and the console goes on loading it for that request.
  const snap = await snapshotForPage(b, s, h.has("rsc") ? 0 : SNAPSHOT_CAP_MS);
  let initial: InitialSnapshot | undefined;
  if (snap) {
    const partial = snap.messages.length > PREVIEW_MESSAGES;
    initial = partial ? { ...snap, messages: snap.messages.slice(-PREVIEW_MESSAGES), partial: true } : snap;
  }
  if (!initial || initial.partial) preload(`${sessionPath(b, s)}/snapshot`, { as: "fetch", crossOrigin: "anonymous" });
  return <SessionView key={`${b}/${s}`} backendId={b} sessionId={s} {...(initial ? { initial } : {})} />;
}
