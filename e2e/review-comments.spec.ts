/**
 * Review comments sent to the agent (issue 30), on a real OpenCode driven by the scripted model: a
 * turn writes two files; a comment on a line of each (unified, then a range in the split layout)
 * survives a reload in the review tray, and "Send to agent" puts both `file:line`s, their code and
 * the comments in the model's next request. At phone width the editor and tray fit and pass axe.
 */
import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures/opencode";
import { messageText } from "../testkit/scripted-model";
import { ReviewPage } from "./pages/review-page";
import { Shell } from "./pages/shell";

const TURN = { timeout: 45_000 };

const ALPHA = "src/alpha.ts";
const BETA = "lib/beta.py";
const alphaSrc = "export const x = 1;\nexport const limit = 3;\nexport const y = 2;\n";
const betaSrc = "def greet(name):\n    return f'hi {name}'\n\nprint(greet('a'))\n";

async function seriousViolations(page: Page): Promise<string[]> {
  await page.waitForTimeout(250);
  const r = await new AxeBuilder({ page })
    .include('[data-testid="review-panel"]')
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
}

function diffOf(panel: Locator, rel: string): Locator {
  return panel.locator(`[data-testid="review-diff"][data-path="${rel}"]`);
}

test.describe("review comments", () => {
  test("two comments on two files survive a reload and reach the model with file:line and code", async ({
    page,
    api,
    stack,
  }) => {
    const alpha = `${stack.workspace}/${ALPHA}`;
    const beta = `${stack.workspace}/${BETA}`;
    stack.model.enqueue(
      {
        toolCalls: [
          { name: "write", arguments: { filePath: alpha, content: alphaSrc } },
          { name: "write", arguments: { filePath: beta, content: betaSrc } },
        ],
      },
      { text: "Wrote alpha and beta." },
    );
    const { sp: rp } = await api.open(page, "review comments", ReviewPage);
    await rp.ask("write alpha and beta", "Wrote alpha and beta.", TURN);

    const chip = page.getByTestId("turn-changes").last();
    await chip.click();
    await expect(rp.panel).toBeVisible();
    await expect(page.getByTestId("review-file")).toHaveCount(2);
    const tray = page.getByTestId("review-tray");
    await expect(tray).toHaveCount(0);

    // Unified: click line 2's number in alpha, write, Ctrl+Enter.
    await page.getByTestId("diff-layout-unified").click();
    const a = diffOf(rp.panel, ALPHA);
    await a.getByRole("button", { name: "Comment on line 2", exact: true }).click();
    await expect(a.locator('[data-picked="true"]')).toHaveCount(1);
    const editor = a.getByTestId("comment-input");
    await expect(editor).toBeFocused();
    await editor.fill("Make the <limit> configurable & document it");
    await editor.press("Control+Enter");
    await expect(a.getByTestId("inline-comment")).toHaveText(/Make the <limit> configurable & document it/);
    await expect(tray).toHaveAttribute("data-count", "1");

    // Split: a range on the new side of beta, lines 1–2 (click, then Shift+click); Escape first cancels.
    await page.getByTestId("diff-layout-split").click();
    const b = diffOf(rp.panel, BETA);
    await b.getByRole("button", { name: "Comment on line 1", exact: true }).click();
    await b.getByTestId("comment-input").press("Escape");
    await expect(b.getByTestId("comment-editor")).toHaveCount(0);
    await expect(rp.panel).toBeVisible();
    await b.getByRole("button", { name: "Comment on line 1", exact: true }).click();
    await b.getByRole("button", { name: "Comment on line 2", exact: true }).click({ modifiers: ["Shift"] });
    await expect(b.locator('[data-side="new"][data-picked="true"]')).toHaveCount(2);
    await b.getByTestId("comment-input").fill("Add a type hint for name.");
    await b.getByTestId("comment-save").click();
    await expect(tray).toHaveAttribute("data-count", "2");
    await expect(page.getByTestId("review-comment-place")).toHaveText([`${BETA}:1-2`, `${ALPHA}:2`]);
    // The alpha comment also shows in the split layout, under its line.
    await expect(a.getByTestId("inline-comment")).toHaveCount(1);

    // Keyboard: focus a line number, Enter opens the editor; Escape closes it again.
    await a.getByRole("button", { name: "Comment on line 3", exact: true }).focus();
    await page.keyboard.press("Enter");
    await expect(a.getByTestId("comment-input")).toBeFocused();
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await expect(a.getByTestId("comment-editor")).toHaveCount(0);

    // A reload keeps both; edit one in the tray.
    await page.reload();
    await expect(rp.view).toHaveAttribute("data-loaded", "true");
    await page.getByTestId("open-changes").click();
    await expect(tray).toHaveAttribute("data-count", "2");
    await expect(page.getByTestId("review-comment-text")).toHaveText([
      "Add a type hint for name.",
      "Make the <limit> configurable & document it",
    ]);
    await tray.getByRole("button", { name: `Edit the comment on ${BETA}:1-2` }).click();
    await tray.getByTestId("comment-input").fill("Add a type hint for name, please.");
    await tray.getByTestId("comment-input").press("Control+Enter");
    await expect(page.getByTestId("review-comment-text").first()).toHaveText("Add a type hint for name, please.");
    expect(await seriousViolations(page)).toEqual([]);

    // Send: one prompt with both places, their code and the comments; the tray empties.
    const before = stack.model.requests.length;
    stack.model.enqueue({ text: "Addressed both comments." });
    await page.getByTestId("review-send").click();
    await expect(rp.assistantText().last()).toHaveText("Addressed both comments.", TURN);
    await expect(tray).toHaveCount(0);
    const req = stack.model.requests.slice(before).find((r) => r.source === "queue");
    expect(req).toBeTruthy();
    const users = req!.messages.filter((m) => m.role === "user");
    const sent = messageText(users[users.length - 1]);
    expect(sent).toContain("Please address these 2 review comments");
    expect(sent).toContain(`${ALPHA}:2`);
    expect(sent).toContain("export const limit = 3;");
    expect(sent).toContain("Make the <limit> configurable & document it");
    expect(sent).toContain(`${BETA}:1-2`);
    expect(sent).toContain("def greet(name):\n    return f'hi {name}'");
    expect(sent).toContain("Add a type hint for name, please.");
    // The prompt shows in the timeline as the user's message.
    await expect(rp.messages("user").last().getByTestId("user-text")).toContainText(`${ALPHA}:2`);
    // Nothing is left to restore after a reload.
    await page.reload();
    await expect(rp.view).toHaveAttribute("data-loaded", "true");
    await page.getByTestId("open-changes").click();
    await expect(rp.panel).toBeVisible();
    await expect(tray).toHaveCount(0);
  });

  test.describe("phone", () => {
    test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

    test("the editor and the tray fit at 390 px", async ({ page, api, stack }) => {
      const rel = "src/phone-note.ts";
      stack.model.enqueue(
        {
          toolCalls: [
            {
              name: "write",
              arguments: {
                filePath: `${stack.workspace}/${rel}`,
                content: `export const veryLongIdentifierNameThatGoesOnAndOn = "${"x".repeat(120)}";\nexport const b = 2;\n`,
              },
            },
          ],
        },
        { text: "Wrote the phone note." },
      );
      const { sp: rp } = await api.open(page, "review comments on a phone", ReviewPage);
      const shell = new Shell(page);
      await rp.ask("write the phone note", "Wrote the phone note.", TURN);
      await page.getByTestId("turn-changes").last().click();
      await expect(rp.panel).toBeVisible();
      const d = diffOf(rp.panel, rel);
      await d.getByRole("button", { name: "Comment on line 1", exact: true }).click();
      const editorBox = await d.getByTestId("comment-editor").boundingBox();
      expect(editorBox!.x).toBeGreaterThanOrEqual(0);
      expect(editorBox!.x + editorBox!.width).toBeLessThanOrEqual(390);
      const saveBox = await d.getByTestId("comment-save").boundingBox();
      expect(saveBox!.x + saveBox!.width).toBeLessThanOrEqual(390);
      expect(saveBox!.height).toBeGreaterThanOrEqual(40);
      await d.getByTestId("comment-input").fill("Shorten this name.");
      await d.getByTestId("comment-save").click();
      const tray = page.getByTestId("review-tray");
      await expect(tray).toHaveAttribute("data-count", "1");
      const trayBox = await tray.boundingBox();
      expect(trayBox!.x).toBeGreaterThanOrEqual(0);
      expect(trayBox!.x + trayBox!.width).toBeLessThanOrEqual(390);
      const sendBox = await page.getByTestId("review-send").boundingBox();
      expect(sendBox!.x + sendBox!.width).toBeLessThanOrEqual(390);
      expect(sendBox!.y + sendBox!.height).toBeLessThanOrEqual(844);
      expect(await shell.horizontalOverflow()).toBeLessThanOrEqual(0);
      expect(await seriousViolations(page)).toEqual([]);
      // Clear drops it.
      await page.getByTestId("review-clear").click();
      await expect(tray).toHaveCount(0);
    });
  });
});
