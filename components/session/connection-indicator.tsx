"use client";
import type { LinkState } from "@/lib/link-state";
import { liveLink } from "@/lib/client/live-link";
import { useLiveLeader } from "@/lib/hooks/use-live-leader";
import { cx } from "../ui/cx";

const LINK_TEXT: Record<LinkState, string> = {
  connecting: "Connecting…",
  connected: "Live",
  reconnecting: "Reconnecting…",
  down: "Backend down",
};

export function ConnectionIndicator({ state, detail }: { state: LinkState; detail?: string }) {
  // One tab of the browser holds the live connection and shares it with the others.
  const leader = useLiveLeader();
  const holder = leader ? "this tab holds the browser's live connection" : "shares another tab's live connection";
  return (
    <button
      type="button"
      // A click drops the live connection and resumes it from where each session was (after a sleep, a flaky network).
      onClick={() => liveLink().reconnect()}
      aria-label={`${LINK_TEXT[state]}: reconnect`}
      data-testid="connection"
      data-state={state}
      data-leader={leader ? "true" : "false"}
      title={`${detail ?? LINK_TEXT[state]} — ${holder}. Click to reconnect.`}
      className={cx(
        "inline-flex h-6 items-center gap-1.5 rounded-full border px-2 text-[11px] font-medium",
        (state === "connected" || state === "connecting") && "border-border text-muted hover:text-fg",
        state === "reconnecting" && "border-warn/40 bg-warn/10 text-warn",
        state === "down" && "border-err/40 bg-err/10 text-err",
      )}
    >
      <span
        className={cx(
          "size-1.5 rounded-full",
          state === "connected"
            ? "bg-ok"
            : state === "connecting"
              ? "animate-pulse bg-muted"
              : state === "reconnecting"
                ? "bg-warn animate-pulse"
                : "bg-err",
        )}
      />
      {LINK_TEXT[state]}
    </button>
  );
}
