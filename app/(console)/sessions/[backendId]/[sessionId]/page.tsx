import { headers } from "next/headers";
import { preload } from "react-dom";
import { SessionView } from "@/components/session/session-view";
import { sessionPath } from "@/lib/client/api-client";
import { snapshotForPage } from "@/server/routes";

/** How long the server render waits for the console's copy of the session before it goes without. */
const SNAPSHOT_CAP_MS = 800;

export default async function SessionPage({ params }: { params: Promise<{ backendId: string; sessionId: string }> }) {
  const { backendId, sessionId } = await params;
  const b = decodeURIComponent(backendId);
  const s = decodeURIComponent(sessionId);
  // Time to the newest message: the page is rendered with the session's newest messages in it
  // (shown before the scripts arrive), and the browser's store starts from the same snapshot. Not
  // for a link's prefetch: a sidebar full of links would load every session in it.
  if ((await headers()).has("next-router-prefetch")) return <SessionView key={`${b}/${s}`} backendId={b} sessionId={s} />;
  const initial = await snapshotForPage(b, s, SNAPSHOT_CAP_MS);
  if (!initial) {
    // Not in time (or not loadable): the console goes on loading its copy, and the browser fetches
    // the snapshot while the page's scripts are on their way (lib/client/session-store.ts asks for
    // the very same URL and gets the preloaded answer).
    preload(`${sessionPath(b, s)}/snapshot`, { as: "fetch", crossOrigin: "anonymous" });
  }
  return <SessionView key={`${b}/${s}`} backendId={b} sessionId={s} {...(initial ? { initial } : {})} />;
}
