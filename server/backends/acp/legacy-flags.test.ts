import { describe, expect, it } from "vitest";
import { fallBackToLegacyFlag } from "./legacy-flags";

describe("fallBackToLegacyFlag", () => {
  it("swaps --acp for --experimental-acp when the agent refused it, in place", () => {
    const cmd = ["gemini", "--acp", "--model", "x"];
    expect(fallBackToLegacyFlag(cmd, ["Unknown argument: acp", "Usage: gemini [options]"])).toEqual({
      from: "--acp",
      to: "--experimental-acp",
    });
    expect(cmd).toEqual(["gemini", "--experimental-acp", "--model", "x"]);
  });

  it("leaves the command alone for any other failure, or without the flag", () => {
    const cmd = ["gemini", "--acp"];
    expect(fallBackToLegacyFlag(cmd, ["Error: not logged in"])).toBeUndefined();
    expect(fallBackToLegacyFlag(["copilot", "--stdio"], ["Unknown argument: acp"])).toBeUndefined();
    expect(fallBackToLegacyFlag(["--acp"], ["Unknown argument: acp"])).toBeUndefined();
    expect(cmd).toEqual(["gemini", "--acp"]);
  });
});
