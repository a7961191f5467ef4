import type { SessionStatus } from "@/lib/model";
import { cx } from "../ui/cx";
import { Spinner } from "../ui/spinner";

const LABEL: Record<SessionStatus, string> = {
  idle: "Idle",
  busy: "Working",
  retry: "Retrying",
  waiting: "Needs you",
  error: "Error",
};

/** The live status of a session as a small glyph; idle shows nothing but keeps the width. */
export function SessionStatusGlyph({ status, className }: { status: SessionStatus; className?: string }) {
  return (
    <span
      className={cx("inline-flex size-3.5 shrink-0 items-center justify-center", className)}
      title={LABEL[status]}
      data-status={status}
    >
      {status === "busy" && <Spinner size={11} className="text-accent" />}
      {status === "retry" && <Spinner size={11} className="text-warn" />}
      {status === "waiting" && <span className="size-2 rounded-full bg-warn shadow-[0_0_0_3px] shadow-warn/20" />}
      {status === "error" && <span className="size-2 rounded-full bg-err" />}
    </span>
  );
}

export function statusLabel(status: SessionStatus): string {
  return LABEL[status];
}
