import "server-only";
import type { PromptBody } from "@/lib/api";
import type { SessionStatus, TimelineEvent } from "@/lib/model";

/**
 * The turn lifecycle every adapter runs a session's turns on (docs/architecture.md, "The turn
 * lifecycle"): at most one running turn per session and the prompts sent while it ran, busy and
 * its status event, the queue, Stop's grace, and `closeTurn`, the one way a turn ends.
 */

/** How long an agent may ignore Stop before the console ends the turn itself. */
export const STOP_GRACE_MS = 10_000;

/** What every running turn has: closed once, and Stop's grace timer while it is pending. */
export interface LiveTurn {
  done: boolean;
  stopTimer?: ReturnType<typeof setTimeout> | undefined;
}

/** What every adapter's session runtime has: its console id, the running turn and the prompts behind it. */
export interface SessionRuntime<T extends LiveTurn, Q = PromptBody> {
  id: string;
  turn?: T | undefined;
  queued: Q[];
}

type TurnSlot<T extends LiveTurn> = { turn?: T | undefined };

/** The running turn (not closed), if any. */
export function runningTurn<T extends LiveTurn>(rt: TurnSlot<T>): T | undefined {
  return rt.turn && !rt.turn.done ? rt.turn : undefined;
}

export function isBusy(rt: TurnSlot<LiveTurn>): boolean {
  return runningTurn(rt) !== undefined;
}

/** The session's status: busy while a turn runs (or `alsoBusy`, e.g. a task paused on a question). */
export function statusOf(rt: TurnSlot<LiveTurn>, alsoBusy = false): SessionStatus {
  return isBusy(rt) || alsoBusy ? "busy" : "idle";
}

export function statusEvent(status: SessionStatus): TimelineEvent {
  return { type: "session.status", status };
}

/** A prompt sent while a turn runs waits behind it (true); otherwise it may start now (false). */
export function queueWhileBusy<T extends LiveTurn, Q>(rt: SessionRuntime<T, Q>, prompt: Q): boolean {
  if (!isBusy(rt)) return false;
  rt.queued.push(prompt);
  return true;
}

/** The turn runs now: it holds the runtime's slot. */
export function openTurn<T extends LiveTurn>(rt: TurnSlot<T>, turn: T): T {
  rt.turn = turn;
  return turn;
}

/**
 * Closes `turn` (false when it was already closed: whatever wanted to end it again is too late). Its
 * grace timer is cleared and the runtime's slot freed; the caller emits the end and takes the next
 * queued prompt.
 */
export function closeTurn<T extends LiveTurn>(rt: TurnSlot<T>, turn: T): boolean {
  if (turn.done) return false;
  turn.done = true;
  clearStopGrace(turn);
  if (rt.turn === turn) rt.turn = undefined;
  return true;
}

/** The next queued prompt, taken off the queue. */
export function takeNext<T extends LiveTurn, Q>(rt: SessionRuntime<T, Q>): Q | undefined {
  return rt.queued.shift();
}

/** Stop (or a failure to start the next prompt): the queued prompts are dropped. */
export function dropQueue<T extends LiveTurn, Q>(rt: SessionRuntime<T, Q>): void {
  rt.queued.length = 0;
}

/**
 * Stop's grace: `expire` runs once, `ms` from the first call, unless the grace is cleared first
 * (the turn closed). Calling again while the grace runs keeps the first timer: pressing Stop twice
 * does not extend it.
 */
export function armStopGrace(
  holder: { stopTimer?: ReturnType<typeof setTimeout> | undefined },
  ms: number,
  expire: () => void,
): void {
  if (holder.stopTimer) return;
  holder.stopTimer = setTimeout(() => {
    holder.stopTimer = undefined;
    expire();
  }, ms);
  holder.stopTimer.unref?.();
}

export function clearStopGrace(holder: { stopTimer?: ReturnType<typeof setTimeout> | undefined }): void {
  if (!holder.stopTimer) return;
  clearTimeout(holder.stopTimer);
  holder.stopTimer = undefined;
}
