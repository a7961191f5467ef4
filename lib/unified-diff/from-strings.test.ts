import { describe, expect, it } from "vitest";
import { diffFromStrings } from "./from-strings";
import { parseUnifiedDiff } from "./parse";

describe("diffFromStrings", () => {
  it("writes a unified patch that parses back to the change", () => {
    const patch = diffFromStrings("src/a.ts", "one\ntwo\nthree\n", "one\n2\nthree\n");
    expect(patch).toBe("--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
    const parsed = parseUnifiedDiff(patch);
    expect([parsed.additions, parsed.deletions]).toEqual([1, 1]);
    expect(parsed.newSrc).toEqual(["one", "2", "three"]);
  });

  it("is empty without a change, and marks a new file against /dev/null", () => {
    expect(diffFromStrings("a", "same\n", "same\n")).toBe("");
    expect(diffFromStrings("a", "", "x\n")).toBe("--- /dev/null\n+++ b/a\n@@ -0,0 +1,1 @@\n+x\n");
  });
});
