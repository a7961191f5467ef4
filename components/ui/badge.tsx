import type { ReactNode } from "react";
import { cx } from "./cx";

export type Tone = "neutral" | "accent" | "ok" | "warn" | "err" | "info";

const TONES: Record<Tone, string> = {
  neutral: "bg-raised text-muted border-border",
  accent: "bg-accent/10 text-accent border-accent/25",
  ok: "bg-ok/10 text-ok border-ok/25",
  warn: "bg-warn/12 text-warn border-warn/30",
  err: "bg-err/10 text-err border-err/25",
  info: "bg-info/10 text-info border-info/25",
};

/** A compact pill: status, counts, chips. 18px tall, 11px text. */
export function Badge({
  tone = "neutral",
  children,
  className,
  title,
  mono,
}: {
  tone?: Tone;
  children: ReactNode;
  className?: string;
  title?: string;
  mono?: boolean;
}) {
  return (
    <span
      title={title}
      className={cx(
        "inline-flex h-[18px] shrink-0 items-center gap-1 whitespace-nowrap rounded border px-1.5 text-[11px] font-medium leading-none",
        mono && "font-mono font-normal",
        TONES[tone],
        className,
      )}
    >
      {children}
    </span>
  );
}
