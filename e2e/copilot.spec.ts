/**
 * Copilot CLI headless (docs/backends/copilot.md) end to end, in the browser, on the real pinned
 * `copilot --headless --stdio` with an isolated COPILOT_HOME, driven by the scripted model through
 * the backend's `provider`; forms come from the CLI's own elicitation path (the MCP server in
 * testkit/mcp-elicit-server.mjs); a slash command runs through the CLI's command queue.
 */
import AxeBuilder from "@axe-core/playwright";
import fs from "node:fs";
import path from "node:path";
import { messageText } from "../testkit/scripted-model";
import { MCP_FORMS_TOOL, MCP_HUGE_FORM_TOOL } from "../testkit/copilot-env";
import { expect, test } from "./fixtures/copilot";
import { BACKEND_ID } from "../testkit/copilot-stack";
import { InputFormPage } from "./pages/input-form";
import { Interrupts } from "./pages/interrupts";
import { SessionPage } from "./pages/session-page";
import { answersAfterCrash, killMidTurn, sharedFlows } from "./shared-flows";
import { beats, echoCall as bash } from "../testkit/scripted-turns";
import { setTheme } from "./pages/theme";

type SeenModel = { requests: { messages: Parameters<typeof messageText>[0][] }[] };

/** Every text the model has been sent so far (to check what reached it). */
function modelSaw(model: SeenModel): string {
  return model.requests.flatMap((r) => r.messages.map((m) => messageText(m))).join("\n");
}

/** An answer's end: the turn ends with `reply`, and what the user answered (`sent`) reached the model. */
async function answered(sp: SessionPage, model: SeenModel, sent: string, reply: string, timeout = 30_000) {
  await sp.expectReply(reply, { timeout });
  expect(modelSaw(model)).toContain(sent);
}

test.describe("Copilot headless", () => {
  // Copilot reports the context itself: the meter shows it.
  sharedFlows(test, { backendId: BACKEND_ID, reasoning: true, usageChip: "context-meter" });

  test("a 5 MB form schema is refused with a clear error, and nothing of it reaches the browser", async ({
    page,
    copilotApi,
    copilotStack,
  }) => {
    copilotStack.model.enqueue(
      { toolCalls: [{ name: MCP_HUGE_FORM_TOOL, arguments: {} }] },
      { text: "The form was refused." },
    );
    const { s, sp } = await copilotApi.open(page, "huge form", SessionPage);
    await sp.prompt("register with the huge form");
    await new Interrupts(page).allowOnce();
    const notice = sp.timeline
      .locator('[data-testid="block"][data-kind="notice"]')
      .filter({ hasText: "The console refused this form" });
    await expect(notice).toBeVisible({ timeout: 30_000 });
    await expect(notice).toContainText("the console takes at most 256 kB");
    await sp.waitStatus("idle", 30_000);
    await expect(page.getByTestId("input-form")).toHaveCount(0);
    // The MCP tool heard that the form was cancelled; the model saw that.
    expect(modelSaw(copilotStack.model)).toContain("huge form: cancel");
    const snap = await copilotApi.snapshot(s.id);
    expect(snap.interrupts).toEqual([]);
    expect(JSON.stringify(snap).length).toBeLessThan(1024 * 1024);
    expect(JSON.stringify(snap)).not.toContain("x".repeat(10_000));
    // …and the page never held it either (what the live stream delivered is in the page's state).
    expect(await page.evaluate(() => document.documentElement.outerHTML.length)).toBeLessThan(1024 * 1024);
  });

  test("a slash command goes through the CLI's command queue and runs (command.queued), behind a running turn; the model is not asked", async ({
    page,
    copilotApi,
    copilotStack,
  }) => {
    copilotStack.model.enqueue(beats(24, 120, "space"));
    const { s, sp } = await copilotApi.open(page, "headless slash command", SessionPage);
    await sp.prompt("talk for a while");
    await expect(sp.assistantText().last()).toContainText("beat1", { timeout: 30_000 });
    const asked = copilotStack.model.requests.length;
    // Sent while the turn runs: the CLI queues it and hands it back when the turn is over.
    await sp.prompt("/session");
    await expect(sp.messages("user").last()).toContainText("/session");
    await expect(sp.timeline.getByText("Session Info", { exact: false })).toBeVisible({ timeout: 60_000 });
    await expect(sp.timeline).toContainText(`ID: ${s.id}`);
    await sp.waitStatus("idle");
    expect(copilotStack.model.requests.length).toBe(asked);
    // The queue goes on: the next prompt is answered.
    await sp.askWithReply(copilotStack.model, "and now a question", "After the command.", { timeout: 30_000 });
  });

  test("a bash call behind a permission card: allowed once, then rejected with feedback", async ({
    page,
    copilotApi,
    copilotStack,
  }) => {
    copilotStack.model.enqueue(bash("e2e-allowed"), { text: "The allowed command ran." });
    const { sp } = await copilotApi.open(page, "headless permission", SessionPage);
    await sp.allowEchoOnce("run the allowed command", "e2e-allowed", "The allowed command ran.");
    const card = page.getByTestId("permission-card");

    copilotStack.model.enqueue(bash("e2e-rejected"), { text: "Understood, I will use ls." });
    await sp.prompt("run the rejected command");
    await expect(card).toBeVisible({ timeout: 30_000 });
    await expect(card).toContainText("echo e2e-rejected");
    await card.getByTestId("permission-feedback").click();
    await card.getByTestId("permission-feedback-input").fill("use ls instead");
    await card.getByTestId("permission-feedback-send").click();
    await expect(card).toHaveCount(0);
    const rejected = sp.toolCards("bash").nth(1);
    await expect(rejected).toHaveAttribute("data-status", "denied");
    // the feedback reached the model with the rejection
    await answered(sp, copilotStack.model, "use ls instead", "Understood, I will use ls.");
  });

  test("a question answered with free text", async ({ page, copilotApi, copilotStack }) => {
    copilotStack.model.enqueue(
      {
        toolCalls: [
          {
            name: "ask_user",
            arguments: {
              question: "Which color should the button be?",
              choices: ["red", "green"],
              allow_freeform: true,
            },
          },
        ],
      },
      { text: "Blue it is." },
    );
    const { sp } = await copilotApi.open(page, "headless question", SessionPage);
    const ui = new Interrupts(page);
    await sp.prompt("ask me about the color");
    const form = ui.question();
    await expect(form).toBeVisible({ timeout: 30_000 });
    await expect(form).toContainText("Which color should the button be?");
    await expect(ui.option("red")).toBeVisible();
    await expect(ui.option("green")).toBeVisible();
    await sp.waitStatus("waiting");
    // nothing is picked or sent for the user
    await expect(form.getByTestId("question-submit")).toBeDisabled();
    await form.getByTestId("question-custom-input").fill("blue, obviously");
    await form.getByTestId("question-submit").click();
    await expect(form).toHaveCount(0);
    await answered(sp, copilotStack.model, "blue, obviously", "Blue it is.");
  });

  test("an MCP elicitation as a form: filled in and submitted, and another declined from the inbox", async ({
    page,
    request,
    copilotApi,
    copilotStack,
  }) => {
    copilotStack.model.enqueue({ toolCalls: [{ name: MCP_FORMS_TOOL, arguments: {} }] });
    const { s, sp } = await copilotApi.open(page, "headless form", SessionPage);
    await sp.prompt("register the project");
    // the MCP tool asks first
    const ui = new Interrupts(page);
    await ui.allowOnce("forms");

    const form = new InputFormPage(page, sp.timeline);
    await expect(form.root).toBeVisible({ timeout: 30_000 });
    await expect(form.root).toContainText("Describe the project to register");
    await expect(form.field("name")).toContainText("Project name");
    await expect(form.field("license").locator("select option")).toHaveText([
      "Choose…",
      "MIT",
      "Apache 2.0",
      "GPL 3.0",
    ]);
    await expect(form.control("private")).not.toBeChecked();
    await sp.waitStatus("waiting");

    // The server checks the values against the form's schema too (400, a message per field).
    const id = await form.root.getAttribute("data-interrupt-id");
    const bad = await request.post(`${copilotStack.url}/api/backends/${BACKEND_ID}/sessions/${s.id}/interrupts/${id}`, {
      data: { action: "accept", values: { name: "x", stars: 9 } },
    });
    expect(bad.status()).toBe(400);
    const body = (await bad.json()) as { error: { details: { fields: Record<string, string> } } };
    expect(Object.keys(body.error.details.fields).sort()).toEqual(["license", "name", "stars"]);

    // In the browser: required fields and bounds are checked before anything is sent.
    await form.submit.click();
    await expect(form.error("name")).toHaveText("Required");
    await expect(form.error("license")).toHaveText("Required");
    // The form, its errors showing, passes axe in both themes (the a11y spec runs on OpenCode, which raises no forms).
    for (const theme of ["dark", "light"] as const) {
      await page.evaluate((t) => {
        document.documentElement.dataset.theme = t;
      }, theme);
      await page.waitForTimeout(250);
      const axe = await new AxeBuilder({ page })
        .include('[data-testid="input-form"]')
        .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
        .analyze();
      const serious = axe.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${theme}: ${v.id} ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
      expect(serious).toEqual([]);
    }
    await form.control("name").fill("x");
    await expect(form.error("name")).toHaveText("At least 2 characters");
    await form.control("name").fill("demo");
    await form.control("license").selectOption("Apache-2.0");
    await form.control("stars").fill("9");
    await expect(form.error("stars")).toHaveText("At most 5");
    await form.control("stars").fill("3");
    await form.control("private").check();
    await expect(form.root.getByTestId("input-field-error")).toHaveCount(0);
    await form.submit.click();
    await expect(form.root).toHaveCount(0);
    const tool = sp.toolCards().filter({ hasText: "Register a project" }).first();
    await expect(tool).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await sp.waitStatus("idle", 30_000);
    expect(modelSaw(copilotStack.model)).toContain(
      'accepted: {"name":"demo","license":"Apache-2.0","stars":3,"private":true}',
    );

    // A second form, declined from the "Needs you" inbox.
    copilotStack.model.enqueue(
      { toolCalls: [{ name: MCP_FORMS_TOOL, arguments: {} }] },
      { text: "No project registered." },
    );
    await sp.prompt("register another project");
    await ui.allowOnce();
    const item = page.getByTestId("inbox-item").filter({ hasText: "Describe the project to register" });
    await expect(item).toBeVisible({ timeout: 30_000 });
    await item.getByTestId("inbox-fill").click();
    const inboxForm = new InputFormPage(page, item);
    await expect(inboxForm.field("license")).toBeVisible();
    await inboxForm.decline.click();
    await expect(item).toHaveCount(0);
    await expect(new InputFormPage(page, sp.timeline).root).toHaveCount(0);
    await answered(sp, copilotStack.model, "declined", "No project registered.");
  });

  test("revert onto a rewind point restores the files and the timeline with the next prompt", async ({
    page,
    copilotApi,
    copilotStack,
  }) => {
    const file = path.join(copilotStack.workspace, "rewind-me.txt");
    copilotStack.model.enqueue(
      { toolCalls: [{ name: "create", arguments: { path: file, file_text: "temporary\n" } }] },
      { text: "Created rewind-me.txt." },
    );
    const { s, sp } = await copilotApi.open(page, "headless rewind", SessionPage);
    await sp.prompt("create the file");
    await new Interrupts(page).allowOnce("rewind-me.txt");
    await sp.expectReply("Created rewind-me.txt.", { timeout: 30_000 });
    expect(fs.readFileSync(file, "utf8")).toBe("temporary\n");

    // Revert from the prompt: the timeline dims what goes; nothing is rewound until the next prompt.
    const user = sp.messages("user").first();
    await user.hover();
    await user.getByTestId("revert-message").click();
    const banner = page.getByTestId("revert-banner");
    await expect(banner).toContainText("rewound when you send the next prompt");
    await expect(sp.timeline.locator('[data-testid="timeline-item"][data-reverted="true"]').first()).toBeVisible();
    expect(fs.existsSync(file)).toBe(true);

    copilotStack.model.enqueue({ text: "Starting over." });
    await sp.prompt("start over");
    await expect(banner).toHaveCount(0, { timeout: 30_000 });
    await sp.expectReply("Starting over.", { timeout: 30_000 });
    expect(fs.existsSync(file)).toBe(false);
    await expect(sp.messages("user")).toHaveCount(1);
    await expect(sp.messages("user").first()).toContainText("start over");
    // and a reload shows the same, from the CLI's own history
    await sp.goto(BACKEND_ID, s.id);
    await expect(sp.messages("user")).toHaveCount(1);
    await expect(sp.assistantText()).toHaveText(["Starting over."]);
  });

  test("killing the CLI mid-turn shows the failure and the restart, and the next prompt works", async ({
    page,
    copilotApi,
    copilotStack,
  }) => {
    const { sp } = await copilotApi.open(page, "headless crash", SessionPage);
    const pid = await killMidTurn(sp, copilotStack.model, async () => {
      const before = await copilotStack.backend();
      process.kill(-before.process!.pid!, "SIGKILL");
      return before.process!.pid;
    });
    await expect(sp.timeline.locator('[data-testid="block"][data-kind="notice"]').last()).toContainText("restarted", {
      timeout: 60_000,
    });
    const after = await copilotStack.backend();
    expect(after.process!.pid).not.toBe(pid);
    expect(after.process!.restarts).toBeGreaterThanOrEqual(1);
    await answersAfterCrash(sp, copilotStack.model);
  });

  test("settings: the backend is ready, its secrets masked, and the headless preset detected", async ({
    page,
    copilotStack,
  }) => {
    await page.goto("/settings");
    const row = page.locator(`[data-testid="backend-row"][data-backend-id="${BACKEND_ID}"]`);
    await expect(row).toHaveAttribute("data-status", "ready");
    await expect(row.getByTestId("backend-env")).toContainText("COPILOT_HOME=***");
    const html = await page.content();
    expect(html).not.toContain("sk-scripted");
    expect(html).not.toContain(copilotStack.model.url);
    expect(html).not.toContain(copilotStack.cli.home);
    await expect(page.getByTestId("preset-copilot-headless")).toHaveAttribute("data-available", "true");
    await page.getByTestId("preset-copilot-headless").click();
    await expect(page.getByTestId("backend-command")).toHaveValue("copilot --headless --stdio --no-auto-update");
  });
});

test.describe("Copilot headless screenshots", () => {
  /** Regenerates docs/screenshots/copilot-form-{dark,light}.png: `SCREENSHOTS=1 npx playwright test e2e/copilot.spec.ts -g screenshots`. */
  test.skip(!process.env.SCREENSHOTS, "screenshots are generated on demand");

  test("an elicitation form waiting in the timeline and the inbox, dark and light", async ({
    page,
    copilotApi,
    copilotStack,
  }) => {
    const out = (name: string) => path.join(import.meta.dirname, "..", "docs", "screenshots", name);
    copilotStack.model.enqueue({
      text: "I'll register it through the forms server.",
      toolCalls: [{ name: MCP_FORMS_TOOL, arguments: {} }],
    });
    const s = await copilotApi.createSession("Register the project");
    const sp = new SessionPage(page);
    await page.addInitScript(() => localStorage.setItem("sb-theme", "dark"));
    await sp.goto(BACKEND_ID, s.id);
    await sp.prompt("Register this project in the catalogue");
    await new Interrupts(page).allowOnce();
    const form = new InputFormPage(page, sp.timeline);
    await expect(form.root).toBeVisible({ timeout: 30_000 });
    await form.control("name").fill("switchboard");
    await form.submit.click();
    await expect(form.error("license")).toHaveText("Required");
    await page.waitForTimeout(500);
    await page.screenshot({ path: out("copilot-form-dark.png") });
    await setTheme(page, "light");
    await page.waitForTimeout(500);
    await page.screenshot({ path: out("copilot-form-light.png") });
    await form.decline.click();
    await sp.waitStatus("idle", 30_000);
  });
});
