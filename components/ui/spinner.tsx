import { cx } from "./cx";

/** A small indeterminate spinner in currentColor. */
export function Spinner({ size = 12, className, label }: { size?: number; className?: string; label?: string }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      className={cx("shrink-0 animate-spin motion-reduce:animate-none", className)}
      role={label ? "status" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
    >
      <circle cx="8" cy="8" r="6" stroke="currentColor" strokeOpacity="0.22" strokeWidth="2" />
      <path d="M14 8a6 6 0 0 0-6-6" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

/** Three dots that pulse in turn; for "thinking" / "working" states. */
export function PulseDots({ className }: { className?: string }) {
  return (
    <span className={cx("inline-flex items-center gap-[3px]", className)} aria-hidden>
      <span className="size-[4px] rounded-full bg-current animate-pulse motion-reduce:animate-none" />
      <span className="size-[4px] rounded-full bg-current animate-pulse motion-reduce:animate-none [animation-delay:150ms]" />
      <span className="size-[4px] rounded-full bg-current animate-pulse motion-reduce:animate-none [animation-delay:300ms]" />
    </span>
  );
}
