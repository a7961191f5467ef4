import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "./parse";
import { toSplitRows } from "./split-rows";

const text = (r: { text: string } | undefined) => r?.text;

describe("split diff rows", () => {
  it("pairs deletions with the additions that follow, context on both sides", () => {
    const patch = [
      "--- a/x.ts",
      "+++ b/x.ts",
      "@@ -1,5 +1,5 @@",
      " keep",
      "-old 1",
      "-old 2",
      "+new 1",
      " mid",
      "+only added",
      " end",
    ].join("\n");
    const rows = toSplitRows(parseUnifiedDiff(patch).rows);
    const pairs = rows.filter((r) => r.kind === "pair");
    expect(pairs.map((r) => (r.kind === "pair" ? [text(r.left), text(r.right)] : null))).toEqual([
      ["keep", "keep"],
      ["old 1", "new 1"],
      ["old 2", undefined],
      ["mid", "mid"],
      [undefined, "only added"],
      ["end", "end"],
    ]);
    // Line numbers stay with their side.
    const second = pairs[1]!;
    expect(second.kind === "pair" && [second.left?.oldNo, second.right?.newNo]).toEqual([2, 2]);
    expect(rows[0]!.kind).toBe("hunk");
  });

  it("an added file is all right side; OpenCode's Index header is skipped", () => {
    const patch =
      "Index: hello.txt\n===================================================================\n--- hello.txt\t\n+++ hello.txt\t\n@@ -0,0 +1,2 @@\n+hello\n+world\n";
    const parsed = parseUnifiedDiff(patch);
    expect(parsed.additions).toBe(2);
    const pairs = toSplitRows(parsed.rows).filter((r) => r.kind === "pair");
    expect(pairs.every((r) => r.kind === "pair" && !r.left && r.right)).toBe(true);
    expect(pairs).toHaveLength(2);
  });

  it("a deletion after additions starts a new block", () => {
    const rows = toSplitRows(parseUnifiedDiff("@@ -1,2 +1,2 @@\n+a\n-b\n+c\n").rows).filter((r) => r.kind === "pair");
    expect(rows.map((r) => (r.kind === "pair" ? [text(r.left), text(r.right)] : null))).toEqual([
      [undefined, "a"],
      ["b", "c"],
    ]);
  });
});
