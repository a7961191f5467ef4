import { SessionView } from "@/components/session/session-view";

export default async function SessionPage({ params }: { params: Promise<{ backendId: string; sessionId: string }> }) {
  const { backendId, sessionId } = await params;
  const b = decodeURIComponent(backendId);
  const s = decodeURIComponent(sessionId);
  return <SessionView key={`${b}/${s}`} backendId={b} sessionId={s} />;
}
