/**
 * The plan review raised from `exitPlanMode.request` (params as @github/copilot 1.0.102 sends them:
 * copilot-sdk/types.d.ts `ExitPlanModeRequest`, actions from `ExitPlanModeAction`).
 */
import { describe, expect, it } from "vitest";
import { INTERRUPT_LIMITS, interruptLimitError } from "@/lib/interrupt-limits";
import { planInterrupt } from "./interrupt-events";

describe("planInterrupt", () => {
  it("shows the summary and the plan file as markdown, and Accept leaves Plan mode for interactive mode", () => {
    const made = planInterrupt(
      "s1",
      "plan_1",
      {
        summary: "- Add greet",
        planContent: "# Plan\n\n1. Add greet",
        actions: ["exit_only", "interactive", "autopilot"],
        recommendedAction: "autopilot",
      },
      5,
    )!;
    expect(made.accept).toBe("interactive");
    const q = made.interrupt.questions![0]!;
    expect(q).toMatchObject({ header: "Plan", markdown: true, custom: true });
    expect(q.question).toBe("- Add greet\n\n---\n\n# Plan\n\n1. Add greet");
    expect(q.options.map((o) => o.label)).toEqual(["Accept", "Keep planning"]);
  });

  it("without interactive among the actions, Accept takes autopilot, else the recommendation", () => {
    expect(
      planInterrupt("s", "p", { summary: "x", actions: ["exit_only", "autopilot"], recommendedAction: "exit_only" }, 0)!
        .accept,
    ).toBe("autopilot");
    expect(
      planInterrupt("s", "p", { summary: "x", actions: ["autopilot_fleet"], recommendedAction: "autopilot_fleet" }, 0)!
        .accept,
    ).toBe("autopilot_fleet");
  });

  it("is undefined without a plan, and keeps a huge plan within the console's bounds", () => {
    expect(planInterrupt("s", "p", { actions: [] }, 0)).toBeUndefined();
    const huge = planInterrupt("s", "p", { summary: "short", planContent: "y".repeat(50_000), actions: [] }, 0)!;
    expect(huge.interrupt.questions![0]!.question.startsWith("short")).toBe(true);
    expect(huge.interrupt.questions![0]!.question.length).toBeLessThanOrEqual(INTERRUPT_LIMITS.maxText);
    expect(interruptLimitError(huge.interrupt)).toBeUndefined();
  });
});
