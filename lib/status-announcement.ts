import type { SessionStatus } from "./model";

/** What a screen reader hears about a session's state: coarse, so streaming never repeats it. */
export type Phase = "idle" | "working" | "waiting" | "failed";

export function phaseOf(status: SessionStatus | undefined, waiting: boolean): Phase {
  if (waiting || status === "waiting") return "waiting";
  if (status === "busy" || status === "retry") return "working";
  if (status === "error") return "failed";
  return "idle";
}

/**
 * The sentence announced when the open session's phase changes from `prev` to `next`, or undefined
 * when nothing is worth saying (no change, or the first look at a session that is simply idle).
 */
export function phaseAnnouncement(prev: Phase | undefined, next: Phase, detail?: string): string | undefined {
  if (prev === next) return undefined;
  switch (next) {
    case "working":
      return prev === "waiting" ? undefined : "The agent is working";
    case "waiting":
      return detail ? `The agent is waiting for you: ${detail}` : "The agent is waiting for you";
    case "failed":
      return detail ? `The turn failed: ${detail}` : "The turn failed";
    case "idle":
      return prev === "working" || prev === "waiting" ? "The agent is done" : undefined;
  }
}
