import { headers } from "next/headers";
import { SessionView } from "@/components/session/session-view";
import { warmSession } from "@/server/routes";

export default async function SessionPage({ params }: { params: Promise<{ backendId: string; sessionId: string }> }) {
  const { backendId, sessionId } = await params;
  const b = decodeURIComponent(backendId);
  const s = decodeURIComponent(sessionId);
  // The console's copy of the session loads while the browser gets the page's scripts (not for a
  // link's prefetch: a sidebar full of links would load every session in it).
  if (!(await headers()).has("next-router-prefetch")) warmSession(b, s);
  return <SessionView key={`${b}/${s}`} backendId={b} sessionId={s} />;
}
