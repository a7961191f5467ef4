import { describe, expect, it, vi } from "vitest";
import type { TimelineEvent, WireEvent } from "../model";
import { SeqBatcher } from "./seq-batcher";

const delta = (seq: number): WireEvent =>
  ({ type: "block.delta", messageId: "m", blockId: "b", field: "text", delta: String(seq), seq }) as WireEvent;

describe("SeqBatcher", () => {
  it("applies each seq once, in one batch per tick, whatever a replay repeats", async () => {
    vi.useFakeTimers();
    const batches: TimelineEvent[][] = [];
    const b = new SeqBatcher(10, (batch) => batches.push(batch));
    expect(b.accept(delta(9))).toBe(false);
    expect(b.accept(delta(10))).toBe(false);
    expect(b.accept(delta(11))).toBe(true);
    expect(b.accept(delta(12))).toBe(true);
    expect(b.accept(delta(11))).toBe(false); // a handover replays from the lowest cursor
    await vi.advanceTimersByTimeAsync(60);
    expect(batches).toHaveLength(1);
    // Adjacent deltas to one block arrive merged (lib/timeline/coalesce.ts).
    expect(batches[0]!.map((e) => (e as { delta: string }).delta)).toEqual(["1112"]);
    expect(batches[0]![0]).not.toHaveProperty("seq");
    vi.useRealTimers();
  });

  it("drops what was queued for the old state when it starts over from a snapshot", async () => {
    vi.useFakeTimers();
    const batches: TimelineEvent[][] = [];
    const b = new SeqBatcher(0, (batch) => batches.push(batch));
    b.accept(delta(1));
    b.reset(5);
    expect(b.accept(delta(4))).toBe(false);
    b.accept(delta(6));
    await vi.advanceTimersByTimeAsync(60);
    expect(batches.flat().map((e) => (e as { delta: string }).delta)).toEqual(["6"]);
    vi.useRealTimers();
  });
});
