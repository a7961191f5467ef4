/**
 * Conformance checks for Stop in each state of a turn, beside ./conformance.ts's "abort ends a
 * running turn" (which stops a streaming reply): Stop while a tool runs, and Stop while a
 * permission waits for an answer. In both the turn must end idle, its interrupts must be gone, and
 * the next prompt must go through — whatever frames the backend sends or leaves out on the way
 * (OpenCode 1.18's `/api` ends a stopped tool with `tool.failed` and `step.ended {tool-calls}` and
 * says nothing more; it drops a pending permission without a `permission.v2.replied`).
 */
import { expect, it } from "vitest";
import type { SessionChannel } from "../hub/session-channel";
import type { ScriptedTurn } from "../../testkit/scripted-model";
import { until } from "@/testkit/until";
import { assistantText, type ConformanceHost, shellCall, toolBlocks } from "./conformance-harness";

/** Registers the checks (inside the suite's describe). */
export function stopChecks(h: ConformanceHost) {
  const bash = (command: string): ScriptedTurn => ({
    toolCalls: [shellCall(h.target(), command, "A command to stop")],
  });
  const skipUnlessDeclared = (ctx: { skip(cond: boolean, why: string): void }) => {
    if (!h.target().stopsInEveryState) ctx.skip(true, "the target does not take part in the stop-state checks yet");
  };

  /** The turn ended: idle, no interrupt left, no tool still running; the next prompt is answered. */
  async function endedAndGoesOn(channel: SessionChannel, what: string) {
    await until(
      () => channel.state.session?.status === "idle" && channel.state.interrupts.length === 0,
      `idle with no interrupt after ${what}`,
      20_000,
    ).catch((err: unknown) => {
      const { session, interrupts } = channel.state;
      throw new Error(`${String(err)} (status ${session?.status}, ${interrupts.length} interrupt(s))`);
    });
    await until(
      () => !toolBlocks(channel.state.messages).some((b) => b.status === "running" || b.status === "pending"),
      `no tool left running after ${what}`,
      10_000,
    );
    // What the stopped turn never asked the model for is dropped first.
    h.target().resetModel();
    h.target().enqueue({ text: `Answered after ${what}.` });
    await h.runTurn(channel, "are you there");
    expect(assistantText(channel.state.messages)).toContain(`Answered after ${what}.`);
  }

  it("Stop while a tool runs ends the turn idle, and the next prompt goes through", async (ctx) => {
    skipUnlessDeclared(ctx);
    const t = h.target();
    t.resetModel();
    t.enqueue(bash("sleep 30"), { text: "The sleep ended (it should have been stopped)." });
    const { channel } = await h.newSession("conformance stop tool");
    await h.adapter().prompt(channel.sessionId, { parts: [{ type: "text", text: "sleep a while" }] });
    await until(
      () => toolBlocks(channel.state.messages).some((b) => b.status === "running"),
      "the tool to run",
      30_000,
    );
    await h.adapter().abort!(channel.sessionId);
    await endedAndGoesOn(channel, "stopping a tool");
    expect(assistantText(channel.state.messages)).not.toContain("it should have been stopped");
  });

  it("Stop while a permission waits ends the turn idle and clears the request", async (ctx) => {
    skipUnlessDeclared(ctx);
    if (!h.adapter().info().capabilities.interrupts.permission || !h.target().asksPermission)
      ctx.skip(true, "no permission interrupts here");
    const t = h.target();
    t.resetModel();
    t.enqueue(bash("echo stop-marker"), { text: "Ran it (it should have been stopped)." });
    const { channel } = await h.newSession("conformance stop permission");
    await h.adapter().prompt(channel.sessionId, { parts: [{ type: "text", text: "run the marker" }] });
    const asked = await until(() => channel.state.interrupts[0], "a permission request", 30_000);
    expect(asked.kind).toBe("permission");
    await h.adapter().abort!(channel.sessionId);
    await endedAndGoesOn(channel, "stopping at a permission");
    expect(assistantText(channel.state.messages)).not.toContain("it should have been stopped");
  });
}
