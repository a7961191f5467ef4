import type { ReactNode } from "react";
import { GoneReasonProvider } from "./gone-reason";
import { loadShare } from "./load";

/**
 * The page answers 404 for an expired link as for a revoked or unknown one (see page.tsx), and
 * its not-found page gets no params. This layout does get the token, and sits above the not-found
 * boundary: it tells the not-found page which of the two it is. Same cached lookup as the page.
 */
export default async function ShareTokenLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ token: string }>;
}) {
  const r = await loadShare((await params).token);
  return (
    <GoneReasonProvider reason={!r.ok && r.status === 410 ? "expired" : "not-found"}>{children}</GoneReasonProvider>
  );
}
