/**
 * The Copilot headless adapter on the real pinned CLI (`copilot --headless --stdio`, isolated
 * COPILOT_HOME; testkit/copilot-env.ts): what the browser tests in e2e/copilot.spec.ts do not
 * show — readiness without a login, compaction, the per-session reasoning effort and mode, a
 * slash command handed back by the CLI's command queue (`command.queued`).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolBlock } from "@/lib/model";
import { until } from "@/testkit/until";
import { copilotHeadless, type CopilotHeadlessSetup } from "../../../testkit/copilot-env";
import { createWorkspace } from "../../../testkit/opencode-env";
import { startScriptedModel, type ScriptedModel } from "../../../testkit/scripted-model";
import { RecordingSink } from "../../../testkit/adapter-harness";
import { CopilotAdapter } from "./adapter";

process.env.SWITCHBOARD_LOG ??= "silent";

let model: ScriptedModel;
let cli: CopilotHeadlessSetup;
let workspace: string;

beforeAll(async () => {
  model = await startScriptedModel();
  cli = await copilotHeadless({ modelBaseUrl: model.url });
  workspace = await createWorkspace();
});
afterAll(async () => {
  await model.close();
  await cli.cleanup();
  fs.rmSync(workspace, { recursive: true, force: true });
});

describe("Copilot headless adapter on the real CLI", () => {
  it("without a login and without a provider, the backend is auth-required and says what to run", async () => {
    const { provider: _provider, model: _model, ...config } = cli.config;
    const sink = new RecordingSink();
    const a = new CopilotAdapter(
      { id: "copilot", label: "Copilot headless", ...config, cwd: workspace, workspace },
      sink,
    );
    try {
      await a.start();
      await until(() => a.info().status === "auth-required", "the backend to be auth-required", 60_000);
      expect(a.info().error).toContain("copilot login");
      expect(a.info().error).toContain("provider");
      // The secrets of the definition are masked in what the browser gets.
      expect(JSON.stringify(a.info())).not.toContain(cli.home);
    } finally {
      await a.stop();
    }
  });

  it("keeps a reasoning effort and a mode per session, and compacts the conversation with a visible divider", async () => {
    const sink = new RecordingSink();
    const a = new CopilotAdapter(
      { id: "copilot", label: "Copilot headless", ...cli.config, cwd: workspace, workspace },
      sink,
    );
    try {
      await a.start();
      await a.ready(60_000);
      const s = await a.createSession({});
      const other = await a.createSession({});
      const high = await a.setSessionOption(s.id, "reasoningEffort", "high");
      expect(high.settings?.options.find((o) => o.id === "reasoningEffort")?.value).toBe("high");
      await expect(a.setSessionOption(s.id, "reasoningEffort", "enormous")).rejects.toThrow(/Not a reasoning effort/);
      const plan = await a.setSessionOption(s.id, "mode", "plan");
      expect(plan.settings?.options.find((o) => o.id === "mode")?.value).toBe("plan");
      // The other session keeps its own settings.
      const untouched = await a.getSession(other.id);
      expect(untouched.settings?.options.find((o) => o.id === "reasoningEffort")?.value).toBe("default");
      await a.setSessionOption(s.id, "mode", "interactive");

      model.enqueue({ text: "The first answer, worth keeping in a summary." });
      await a.prompt(s.id, { parts: [{ type: "text", text: "say something to compact" }] });
      await until(
        () =>
          sink.state(s.id).session?.status === "idle" && sink.state(s.id).messages.some((m) => m.role === "assistant"),
        "the turn to end",
        60_000,
      );
      model.enqueue({ text: "<overview>The user asked for something to compact; the assistant answered.</overview>" });
      await a.compact(s.id);
      await until(
        () =>
          sink.state(s.id).messages.some((m) => m.blocks.some((b) => b.kind === "notice" && b.code === "compaction")),
        "the compaction divider",
        120_000,
      );
    } finally {
      await a.stop();
    }
  }, 180_000);

  it("a slash command goes through the CLI's queue and runs (command.queued → invoke → respondToQueuedCommand)", async () => {
    const sink = new RecordingSink();
    const a = new CopilotAdapter(
      { id: "copilot", label: "Copilot headless", ...cli.config, cwd: workspace, workspace },
      sink,
    );
    try {
      await a.start();
      await a.ready(60_000);
      const s = await a.createSession({});
      const requests = model.requests.length;
      await a.prompt(s.id, { parts: [{ type: "text", text: "/session" }] });
      await until(
        () =>
          sink
            .state(s.id)
            .messages.some(
              (m) =>
                m.role === "assistant" &&
                m.blocks.some((blk) => blk.kind === "text" && blk.text.includes("Session Info")),
            ),
        "the command's output",
        60_000,
      );
      expect(sink.state(s.id).messages.find((m) => m.role === "user")!.blocks[0]).toMatchObject({
        kind: "text",
        text: "/session",
      });
      // A command is not a prompt: the model was not asked.
      expect(model.requests.length).toBe(requests);
      // The queue goes on: a second command runs too.
      await a.prompt(s.id, { parts: [{ type: "text", text: "/usage" }] });
      await until(
        () =>
          sink
            .state(s.id)
            .messages.some((m) => m.blocks.some((blk) => blk.kind === "text" && blk.text.includes("Session Usage"))),
        "the second command's output",
        60_000,
      );
      // An unknown slash word is an ordinary prompt.
      model.enqueue({ text: "Not a command." });
      await a.prompt(s.id, { parts: [{ type: "text", text: "/not-a-command here" }] });
      await until(
        () =>
          sink
            .state(s.id)
            .messages.some((m) => m.blocks.some((blk) => blk.kind === "text" && blk.text === "Not a command.")),
        "the model's reply",
        60_000,
      );
    } finally {
      await a.stop();
    }
  }, 180_000);

  it("in Plan mode the agent's plan comes back for approval: Keep planning keeps the mode, Accept leaves it (exitPlanMode.request, session.mode_changed)", async () => {
    const sink = new RecordingSink();
    const a = new CopilotAdapter(
      { id: "copilot", label: "Copilot headless", ...cli.config, cwd: workspace, workspace },
      sink,
    );
    const mode = (id: string) => sink.state(id).session?.settings?.options.find((o) => o.id === "mode")?.value;
    const planInterrupt = (id: string) => sink.state(id).interrupts.find((i) => i.id.startsWith("plan_"));
    try {
      await a.start();
      await a.ready(60_000);
      const s = await a.createSession({});
      await a.setSessionOption(s.id, "mode", "plan");
      // The CLI's exit_plan_mode tool takes `summary` (required), `showFleet`, `recommendedAction`
      // (its schema in @github/copilot 1.0.102, prebuilds/linux-x64/runtime.node).
      const summary = "- Add a `greet` function\n- Test it";
      model.enqueue({ toolCalls: [{ name: "exit_plan_mode", arguments: { summary } }] });
      await a.prompt(s.id, { parts: [{ type: "text", text: "plan a greeting" }] });
      await until(() => planInterrupt(s.id) !== undefined, "the plan to come back for approval", 60_000);
      // The CLI offered the tool: plan mode has it once the callback is asked for.
      expect(model.requests.at(-1)?.tools).toContain("exit_plan_mode");
      const first = planInterrupt(s.id)!;
      expect(first.kind).toBe("question");
      expect(first.questions?.[0]?.question).toContain("Add a `greet` function");
      expect(first.questions?.[0]?.options.map((o) => o.label)).toEqual(["Accept", "Keep planning"]);
      await a.answerInterrupt!(s.id, first.id, { answers: [["Keep planning"]] });
      // Not approved: the CLI fails the tool with "Plan not approved…" and ends the turn there,
      // waiting in Plan mode for the user's next message.
      const toolBlock = () =>
        sink
          .state(s.id)
          .messages.flatMap((m) => m.blocks)
          .find((b): b is ToolBlock => b.kind === "tool" && b.rawTool === "exit_plan_mode");
      await until(
        () => sink.state(s.id).session?.status === "idle" && toolBlock()?.status === "error",
        "the plan to be sent back",
        60_000,
      );
      expect(JSON.stringify(toolBlock())).toContain("Plan not approved");
      expect(mode(s.id)).toBe("plan");

      model.enqueue(
        { toolCalls: [{ name: "exit_plan_mode", arguments: { summary: "- The refined plan" } }] },
        { text: "Implementing the plan now." },
      );
      await a.prompt(s.id, { parts: [{ type: "text", text: "the plan is fine, ask again" }] });
      await until(
        () => planInterrupt(s.id) !== undefined && planInterrupt(s.id)!.id !== first.id,
        "the second plan",
        60_000,
      );
      await a.answerInterrupt!(s.id, planInterrupt(s.id)!.id, { answers: [["Accept"]] });
      await until(
        () =>
          sink
            .state(s.id)
            .messages.some((m) => m.blocks.some((b) => b.kind === "text" && b.text === "Implementing the plan now.")),
        "the turn to go on after the plan was accepted",
        60_000,
      );
      // session.mode_changed moved the session's mode selector off Plan.
      await until(() => mode(s.id) === "interactive", "the mode to follow the CLI", 30_000);
      expect((await a.getSession(s.id)).settings?.options.find((o) => o.id === "mode")?.value).toBe("interactive");
    } finally {
      await a.stop();
    }
  }, 240_000);
});
