import { headers } from "next/headers";
import { preload } from "react-dom";
import { SessionView } from "@/components/session/session-view";
import { sessionPath } from "@/lib/client/api-client";
import { warmSession } from "@/server/routes";

export default async function SessionPage({ params }: { params: Promise<{ backendId: string; sessionId: string }> }) {
  const { backendId, sessionId } = await params;
  const b = decodeURIComponent(backendId);
  const s = decodeURIComponent(sessionId);
  // Time to the newest message: the console loads its copy of the session, and the browser fetches
  // the snapshot, while the page's scripts are still on their way (lib/client/session-store.ts asks
  // for the very same URL and gets the preloaded answer). Not for a link's prefetch: a sidebar full
  // of links would load every session in it.
  if (!(await headers()).has("next-router-prefetch")) {
    warmSession(b, s);
    preload(`${sessionPath(b, s)}/snapshot`, { as: "fetch", crossOrigin: "anonymous" });
  }
  return <SessionView key={`${b}/${s}`} backendId={b} sessionId={s} />;
}
