import { IconBan, IconClock } from "@/components/ui/icons";

/** Why a share link shows nothing, in words (`data-reason`). */
export type UnavailableReason = "expired" | "not-found" | "rate-limited" | "unavailable";

const TITLES: Record<UnavailableReason, string> = {
  expired: "This share link has expired",
  "not-found": "This share link is not available",
  "rate-limited": "Too many requests",
  unavailable: "Temporarily unavailable",
};

export function reasonForStatus(status: number): UnavailableReason {
  return status === 410 ? "expired" : status === 429 ? "rate-limited" : status === 503 ? "unavailable" : "not-found";
}

/**
 * Why a share link shows nothing. No state and no effects, so it renders the same on the server
 * and in the not-found page's client component. `status` is the share's status as its public API
 * answers it (404, 410, 429, 503 — `data-status`), not necessarily the HTTP status of the page:
 * see docs/sharing.md.
 */
export function ShareUnavailable({
  status,
  reason = reasonForStatus(status),
  message,
}: {
  status: number;
  reason?: UnavailableReason;
  message: string;
}) {
  return (
    <div
      className="grid min-h-dvh place-items-center px-6"
      data-testid="share-unavailable"
      data-status={status}
      data-reason={reason}
    >
      <div className="max-w-sm text-center">
        <div className="mx-auto grid size-10 place-items-center rounded-full border border-border bg-panel text-faint">
          {reason === "expired" ? <IconClock size={18} /> : <IconBan size={18} />}
        </div>
        <h1 className="mt-3 text-[15px] font-semibold text-fg">{TITLES[reason]}</h1>
        <p className="mt-1 text-[13px] text-muted">{message}</p>
        <p className="mt-4 text-[11.5px] text-faint">Switchboard · shared session</p>
      </div>
    </div>
  );
}
