/**
 * The browser flows every backend shares, written once and run over each stack (the way Zed runs one
 * e2e suite for every agent): a reply streamed in pieces, Stop on a slow turn, a reload in the middle
 * of a reply, the history after a console restart with the conversation going on, and the agent's
 * secrets kept from its tools. A stack's spec calls `sharedFlows(test, { … })` with its own
 * fixtures (e2e/fixtures/logged-in.ts gives every stack `stack`, `request` and a logged-in page).
 * `killMidTurn` and `answersAfterCrash` are the halves of the "agent killed mid-turn" tests, whose
 * kill is each backend's own.
 */
import type { APIRequestContext, Page, TestType } from "@playwright/test";
import { agentEnvOutput, expectNoConsoleSecrets } from "./fixtures/agent-env";
import { type AnyStack, ConsoleApi, expect } from "./fixtures/logged-in";
import { SessionPage } from "./pages/session-page";
import type { ScriptedModel } from "../testkit/scripted-model";
import { beats } from "../testkit/scripted-turns";

export interface FlowTarget {
  backendId: string;
  /** The agent streams the model's reasoning as a reasoning block. */
  reasoning?: boolean;
  /** The chip its usage report shows once a turn has ended. */
  usageChip?: "usage" | "context-meter";
  /** Secrets besides the console token that the agent's tools must not see (another backend's). */
  otherSecrets?: (stack: FlowStack) => string[];
  /** After a console restart the agent's model is given the earlier turns (default true). */
  remembersAfterRestart?: boolean;
  /** More checks of the backend's own, once the streamed reply is whole and the session idle. */
  afterStream?: (sp: SessionPage, stack: FlowStack) => Promise<void>;
  /** More checks of the backend's own, once the conversation has gone on after the restart. */
  afterRestart?: (sp: SessionPage, stack: FlowStack) => Promise<void>;
  /** Flows this stack's spec covers in its own way (with a reason there). */
  skip?: FlowName[];
}

export type FlowName = "env" | "stream" | "stop" | "reload" | "restart";

export type FlowStack = AnyStack;

type FlowTest = TestType<{ page: Page; request: APIRequestContext }, { stack: FlowStack }>;

const slowText = Array.from({ length: 40 }, (_, i) => `chunk${i} `).join("");

export function sharedFlows(test: FlowTest, target: FlowTarget) {
  const { backendId } = target;
  const open = async (page: Page, request: APIRequestContext, stack: FlowStack, title: string) => {
    const s = await new ConsoleApi(request, stack).newSession(backendId, title);
    const sp = await SessionPage.open(page, backendId, s.id);
    return { s, sp };
  };

  const flow = (name: FlowName) => !target.skip?.includes(name);
  test.describe("shared flows", () => {
    if (flow("env"))
      test("a bash tool running env shows no console secret", async ({ request, stack }) => {
        stack.model.reset();
        const out = await agentEnvOutput(request, stack.url, backendId, stack.model);
        expectNoConsoleSecrets(out, [stack.token, ...(target.otherSecrets?.(stack) ?? [])]);
      });

    if (flow("stream"))
      test("a reply streams in pieces, then whole", async ({ page, request, stack }) => {
        stack.model.reset();
        const reply = `Streamed by ${backendId}. ${Array.from({ length: 14 }, (_, i) => `word${i}`).join(" ")} — done.`;
        stack.model.enqueue({
          ...(target.reasoning ? { reasoning: "Weighing the options for this answer." } : {}),
          text: reply,
          chunks: 16,
          delayMs: 110,
        });
        const { sp } = await open(page, request, stack, "shared stream");
        await sp.prompt("answer slowly");
        await expect(sp.messages("user").last()).toContainText("answer slowly");
        await sp.expectStreamed(reply, 30_000);
        if (target.reasoning) {
          const reasoning = sp.timeline.locator('[data-testid="block"][data-kind="reasoning"]');
          await expect(reasoning).toHaveCount(1);
          await sp.expand(reasoning);
          await expect(reasoning).toContainText("Weighing the options for this answer.");
        }
        await sp.waitStatus("idle");
        if (target.usageChip) await expect(page.getByTestId(target.usageChip)).toBeVisible();
        await target.afterStream?.(sp, stack);
      });

    if (flow("stop"))
      test("Stop ends a slow turn, what was shown stays, and the next prompt works", async ({
        page,
        request,
        stack,
      }) => {
        stack.model.reset();
        stack.model.enqueue({ text: slowText, chunks: 40, delayMs: 250 });
        const { sp } = await open(page, request, stack, "shared stop");
        await sp.promptUntil("go slowly", "chunk2", { timeout: 30_000 });
        await sp.stop.click();
        await sp.waitStatus("idle", 15_000);
        await expect(sp.timeline.getByTestId("message-stopped")).toBeVisible();
        const shown = (await sp.assistantText().last().textContent()) ?? "";
        expect(shown).not.toContain("chunk39");
        // nothing more arrives once stopped
        await page.waitForTimeout(1000);
        expect(await sp.assistantText().last().textContent()).toBe(shown);
        await sp.askWithReply(stack.model, "and now?", "After the stop.", { timeout: 30_000 });
      });

    if (flow("reload"))
      test("a reload in the middle of a reply shows it whole, once", async ({ page, request, stack }) => {
        stack.model.reset();
        stack.model.enqueue({ text: `${slowText}the end.`, chunks: 40, delayMs: 100 });
        const { s, sp } = await open(page, request, stack, "shared reload");
        await sp.promptUntil("a long answer please", "chunk3", { timeout: 30_000 });
        await sp.goto(backendId, s.id);
        await expect(sp.assistantText().last()).toHaveText(`${slowText}the end.`, { timeout: 30_000 });
        await sp.waitStatus("idle");
        await expect(sp.messages("user")).toHaveCount(1);
        await expect(sp.messages("assistant")).toHaveCount(1);
      });

    if (flow("restart"))
      test("after a console restart the history is there and the conversation goes on", async ({
        page,
        request,
        stack,
      }) => {
        stack.model.reset();
        stack.model.enqueue({ text: "Noted: the code word is periwinkle." });
        const { s, sp } = await open(page, request, stack, "shared restart");
        await sp.ask("Remember the code word periwinkle.", "Noted: the code word is periwinkle.", { timeout: 30_000 });
        await stack.restartConsole();
        await sp.goto(backendId, s.id);
        await expect(sp.messages("user")).toHaveCount(1);
        await expect(sp.messages("user").first()).toContainText("Remember the code word periwinkle.");
        await expect(sp.assistantText().last()).toHaveText("Noted: the code word is periwinkle.");
        // listed in the sidebar after the restart
        await expect(page.locator(`[data-testid="session-row"][data-session-id="${s.id}"]`)).toBeVisible();
        stack.model.enqueue({ text: "It was periwinkle." });
        await sp.prompt("What was the code word?");
        await expect(sp.assistantText().last()).toHaveText("It was periwinkle.", { timeout: 30_000 });
        await expect(sp.messages("user")).toHaveCount(2);
        if (target.remembersAfterRestart !== false)
          expect(JSON.stringify(stack.model.requests.at(-1)!.messages)).toContain("Remember the code word periwinkle.");
        await target.afterRestart?.(sp, stack);
      });
  });
}

/**
 * The first half of each backend's "killed mid-turn" test: a long turn started and streaming, then
 * `kill()` (the backend's own way to kill its agent) run under it; the turn fails saying `error`
 * and the session goes idle. Returns what `kill()` returned (the killed pid, say).
 */
export async function killMidTurn<T>(
  sp: SessionPage,
  model: Pick<ScriptedModel, "enqueue">,
  kill: () => T | Promise<T>,
  error = "killed by SIGKILL",
): Promise<T> {
  model.enqueue(beats(40, 250));
  await sp.promptUntil("keep going until killed", "beat2", { timeout: 30_000 });
  const killed = await kill();
  await expect(sp.timeline.getByTestId("message-error").last()).toContainText(error, { timeout: 15_000 });
  await sp.waitStatus("idle");
  return killed;
}

/** The end of a "killed mid-turn" test: the next prompt is answered. */
export async function answersAfterCrash(sp: SessionPage, model: Pick<ScriptedModel, "enqueue">) {
  await sp.askWithReply(model, "are you back", "Back after the crash.", { timeout: 30_000 });
}
