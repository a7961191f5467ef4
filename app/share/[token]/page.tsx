import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { cache } from "react";
import { SharedSessionView } from "@/components/share/shared-session-view";
import { ShareUnavailable } from "@/components/share/share-unavailable";
import { loadSharedPage } from "@/server/shares/public";

export const dynamic = "force-dynamic";

/** One resolution per request, shared by the metadata and the page. */
const load = cache(async (token: string) => loadSharedPage(token, await headers()));

export async function generateMetadata({ params }: { params: Promise<{ token: string }> }): Promise<Metadata> {
  const r = await load((await params).token);
  return { title: r.ok ? `${r.snapshot.session.title} · Shared session` : "Shared session · Switchboard" };
}

/**
 * A shared session, server-rendered from the redacted snapshot for a fast first paint, then kept
 * live over the share's own event stream. Unknown, revoked and expired links answer 404.
 */
export default async function SharePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const r = await load(token);
  if (!r.ok) {
    if (r.status === 404 || r.status === 410) notFound();
    return <ShareUnavailable status={r.status} message={r.message} />;
  }
  return <SharedSessionView token={token} initial={r.snapshot} />;
}
