import { describe, expect, it } from "vitest";
import { canonicalTool, TOOL_NAMES } from "./tool-names";

describe("canonicalTool", () => {
  it("maps agents' tool names to canonical tools, case-insensitively, with extra aliases", () => {
    expect(canonicalTool("Bash")).toBe("bash");
    expect(canonicalTool("apply_patch")).toBe("patch");
    expect(canonicalTool("todowrite")).toBe("todo");
    expect(canonicalTool("view")).toBe("other");
    expect(canonicalTool("view", { ...TOOL_NAMES, view: "read" })).toBe("read");
    expect(canonicalTool("my_mcp_tool")).toBe("other");
  });
});
