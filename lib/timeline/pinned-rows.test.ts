import { describe, expect, it } from "vitest";
import { defaultRangeExtractor } from "@tanstack/react-virtual";
import { withPinned } from "./pinned-rows";

describe("withPinned", () => {
  it("adds the newest row to a range scrolled far above it, in order", () => {
    const range = defaultRangeExtractor({ startIndex: 10, endIndex: 12, overscan: 1, count: 5001 });
    expect(range).toEqual([9, 10, 11, 12, 13]);
    expect(withPinned(range, [5000], 5001)).toEqual([9, 10, 11, 12, 13, 5000]);
  });

  it("merges pinned rows above and inside the range without repeating any", () => {
    expect(withPinned([4, 5, 6], [6, 2, 2, 9], 10)).toEqual([2, 4, 5, 6, 9]);
  });

  it("drops pinned indexes that are not rows", () => {
    expect(withPinned([0, 1], [-1, 3, 1.5, Number.NaN], 3)).toEqual([0, 1]);
  });

  it("returns the range unchanged when nothing is pinned or all pinned rows are in it", () => {
    expect(withPinned([3, 4], [], 10)).toEqual([3, 4]);
    expect(withPinned([3, 4], [4], 10)).toEqual([3, 4]);
  });
});
