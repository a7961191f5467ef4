"use client";
import { createContext, useContext, type ReactNode } from "react";
import { ShareUnavailable } from "@/components/share/share-unavailable";

/** Why the page of a share answers 404: its link expired, or it was revoked or never existed. */
export type GoneReason = "expired" | "not-found";

const GoneReasonContext = createContext<GoneReason>("not-found");

/** Set by the share's layout, which gets the token; the not-found page gets no props at all. */
export function GoneReasonProvider({ reason, children }: { reason: GoneReason; children: ReactNode }) {
  return <GoneReasonContext.Provider value={reason}>{children}</GoneReasonContext.Provider>;
}

const MESSAGES: Record<GoneReason, string> = {
  expired:
    "The person who shared this session set the link to stop working after a while, and that time has passed. Ask them for a new link.",
  "not-found":
    "It was revoked, the session it showed is gone, or the link is not complete. Ask the person who shared it for a new link.",
};

/** The not-found page of a share: HTTP 404 either way, but an expired link says so (`data-reason`). */
export function ShareGoneView() {
  const reason = useContext(GoneReasonContext);
  return <ShareUnavailable status={reason === "expired" ? 410 : 404} reason={reason} message={MESSAGES[reason]} />;
}
