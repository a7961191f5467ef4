import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SharedSessionView } from "@/components/share/shared-session-view";
import { ShareUnavailable } from "@/components/share/share-unavailable";
import { loadShare } from "./load";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ token: string }> }): Promise<Metadata> {
  const r = await loadShare((await params).token);
  return { title: r.ok ? `${r.snapshot.session.title} · Shared session` : "Shared session · Switchboard" };
}

/**
 * A shared session, server-rendered from the redacted snapshot for a fast first paint, then kept
 * live over the share's own event stream.
 *
 * Unknown, revoked and expired links answer HTTP 404. The public API answers 410 for an expired
 * share, but a page of the App Router can only set 404, 403 or 401 (`notFound()`, `forbidden()`,
 * `unauthorized()`; Next 16's HTTP access fallbacks), so the page tells an expired link apart in
 * what it shows instead: not-found.tsx, told by the layout, says "This share link has expired"
 * (`data-reason="expired"`). See docs/sharing.md.
 */
export default async function SharePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const r = await loadShare(token);
  if (!r.ok) {
    if (r.status === 404 || r.status === 410) notFound();
    return <ShareUnavailable status={r.status} message={r.message} />;
  }
  return <SharedSessionView token={token} initial={r.snapshot} />;
}
