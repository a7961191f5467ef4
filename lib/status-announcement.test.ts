import { describe, expect, it } from "vitest";
import { phaseAnnouncement, phaseOf } from "./status-announcement";

describe("phaseOf", () => {
  it("folds statuses and pending interrupts into four phases", () => {
    expect(phaseOf("busy", false)).toBe("working");
    expect(phaseOf("retry", false)).toBe("working");
    expect(phaseOf("busy", true)).toBe("waiting");
    expect(phaseOf("waiting", false)).toBe("waiting");
    expect(phaseOf("error", false)).toBe("failed");
    expect(phaseOf("idle", false)).toBe("idle");
    expect(phaseOf(undefined, false)).toBe("idle");
  });
});

describe("phaseAnnouncement", () => {
  it("says each change once and nothing while the phase holds", () => {
    expect(phaseAnnouncement("idle", "working")).toBe("The agent is working");
    expect(phaseAnnouncement("working", "working")).toBeUndefined();
    expect(phaseAnnouncement("working", "waiting", "Run rm -rf dist")).toBe(
      "The agent is waiting for you: Run rm -rf dist",
    );
    expect(phaseAnnouncement("working", "idle")).toBe("The agent is done");
    expect(phaseAnnouncement("working", "failed", "rate limited")).toBe("The turn failed: rate limited");
  });
  it("stays quiet on a first look at an idle session and when an answer resumes the turn", () => {
    expect(phaseAnnouncement(undefined, "idle")).toBeUndefined();
    expect(phaseAnnouncement("failed", "idle")).toBeUndefined();
    expect(phaseAnnouncement("waiting", "working")).toBeUndefined();
  });
});
