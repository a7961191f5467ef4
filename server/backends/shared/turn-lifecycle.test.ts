import { afterEach, describe, expect, it, vi } from "vitest";
import {
  armStopGrace,
  closeTurn,
  dropQueue,
  isBusy,
  type LiveTurn,
  openTurn,
  queueWhileBusy,
  runningTurn,
  type SessionRuntime,
  statusOf,
  takeNext,
} from "./turn-lifecycle";

interface T extends LiveTurn {
  n: number;
}
const runtime = (): SessionRuntime<T, string> => ({ id: "s", queued: [] });

afterEach(() => {
  vi.useRealTimers();
});

describe("turn lifecycle", () => {
  it("runs one turn at a time: prompts sent while busy wait, in order, and Stop drops them", () => {
    const rt = runtime();
    expect(queueWhileBusy(rt, "first")).toBe(false);
    const turn = openTurn<T>(rt, { n: 1, done: false });
    expect(isBusy(rt)).toBe(true);
    expect(statusOf(rt)).toBe("busy");
    expect(queueWhileBusy(rt, "second")).toBe(true);
    expect(queueWhileBusy(rt, "third")).toBe(true);
    expect(closeTurn(rt, turn)).toBe(true);
    expect(rt.turn).toBeUndefined();
    expect(statusOf(rt)).toBe("idle");
    expect(takeNext(rt)).toBe("second");
    dropQueue(rt);
    expect(takeNext(rt)).toBeUndefined();
  });

  it("closes a turn once: a late result after a local end is refused", () => {
    const rt = runtime();
    const turn = openTurn<T>(rt, { n: 1, done: false });
    expect(closeTurn(rt, turn)).toBe(true);
    expect(closeTurn(rt, turn)).toBe(false);
    // The next turn's slot is not freed by the old one's late close.
    const next = openTurn<T>(rt, { n: 2, done: false });
    expect(closeTurn(rt, turn)).toBe(false);
    expect(runningTurn(rt)).toBe(next);
  });

  it("counts something else as busy when the backend says so (a task paused on a question)", () => {
    expect(statusOf(runtime(), true)).toBe("busy");
  });

  it("Stop's grace ends the turn once, from the first Stop; closing the turn cancels it", () => {
    vi.useFakeTimers();
    const rt = runtime();
    const turn = openTurn<T>(rt, { n: 1, done: false });
    const expired = vi.fn(() => closeTurn(rt, turn));
    armStopGrace(turn, 1000, expired);
    vi.advanceTimersByTime(600);
    armStopGrace(turn, 1000, expired); // a second Stop does not extend the grace
    vi.advanceTimersByTime(400);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(isBusy(rt)).toBe(false);

    const other = openTurn<T>(rt, { n: 2, done: false });
    const never = vi.fn();
    armStopGrace(other, 1000, never);
    closeTurn(rt, other);
    expect(other.stopTimer).toBeUndefined();
    vi.advanceTimersByTime(2000);
    expect(never).not.toHaveBeenCalled();
  });
});
