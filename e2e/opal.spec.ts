/**
 * Opal in the browser (docs/backends/opal.md), against the fake `opal-server` derived from Opal's
 * source (testkit/fake-opal.ts) on PATH and the scripted model: a streamed reply with
 * reasoning, a tool call with its output, Stop, the session list and the history after a console
 * restart, the agent killed mid-turn, a provider error (Opal goes idle without `agent_end`), an
 * edit's structured diff in the timeline and the review, Compact on a small session, a question
 * answered, a confirmation, a sub-agent's timeline under its parent, the plan from the tasks tool,
 * a branch from an earlier message, the device flow's code and link in Settings, an API-key
 * provider set up from Settings.
 */
import fs from "node:fs";
import path from "node:path";
import { BackendAuthPage } from "./pages/backend-auth";
import { InputFormPage } from "./pages/input-form";
import { ReviewPage, twoTurnsTranscript } from "./pages/review-page";
import { Interrupts } from "./pages/interrupts";
import { SessionPage } from "./pages/session-page";
import { answersAfterCrash, killMidTurn, sharedFlows } from "./shared-flows";
import { lineHash } from "../testkit/fake-opal-agent";
import { expect, test } from "./fixtures/opal";
import { CONFIRM_ID, CONFIRM_SECRET, LOGIN_ID, OPAL_ID } from "../testkit/fake-opal-stack";
import { lastUserTexts } from "../testkit/scripted-turns";

test.describe("Opal", () => {
  // After a restart Opal resumes the session by id: its model sees the earlier turn.
  sharedFlows(test, { backendId: OPAL_ID, otherSecrets: () => [CONFIRM_SECRET] });

  test("streams a reply with its reasoning; a bash call with its streamed output", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    const reply = `Streamed by Opal. ${Array.from({ length: 12 }, (_, i) => `word${i}`).join(" ")}.`;
    opalStack.model.enqueue(
      // Opal turns the model's <status> tag into status_update (stream.ex) and takes it out of the text.
      {
        reasoning: "First I think about the marker.",
        text: `${reply}<status>Running bash</status>`,
        chunks: 12,
        delayMs: 60,
        toolCalls: [{ name: "bash", arguments: { command: "echo opal-e2e-marker && sleep 3 && echo line-two" } }],
      },
      { text: "The marker ran." },
    );
    const { sp } = await opalApi.open(page, "opal stream", SessionPage);
    await sp.prompt("think, answer and run the marker");
    await expect(sp.messages("user").last()).toContainText("think, answer and run the marker");
    await expect(sp.timeline.locator('[data-testid="block"][data-kind="reasoning"]').first()).toBeVisible({
      timeout: 20_000,
    });
    await expect(sp.assistantText().first()).toHaveText(reply, { timeout: 20_000 });
    // Opal's status_update is the live status line while the tool runs.
    await expect(page.getByTestId("activity-detail")).toHaveText("Running bash", { timeout: 20_000 });
    const bash = sp.toolCards("bash").first();
    await expect(bash).toHaveAttribute("data-status", "completed", { timeout: 20_000 });
    await sp.expand(bash);
    await expect(bash.getByTestId("tool-output")).toContainText("opal-e2e-marker");
    await expect(bash.getByTestId("tool-output")).toContainText("line-two");
    await sp.expectReply("The marker ran.");
    await expect(page.getByTestId("usage")).toBeVisible();
  });

  test("killing opal-server mid-turn ends the turn visibly; it is restarted and the next prompt works", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    const { sp } = await opalApi.open(page, "opal crash", SessionPage);
    const kill = async () => process.kill((await opalStack.backend(OPAL_ID)).process!.pid!, "SIGKILL");
    await killMidTurn(sp, opalStack.model, kill, "SIGKILL");
    await expect.poll(async () => (await opalStack.backend(OPAL_ID)).status, { timeout: 30_000 }).toBe("ready");
    await expect(sp.timeline.locator('[data-testid="block"][data-kind="notice"]').last()).toContainText(
      "The agent was restarted",
    );
    await answersAfterCrash(sp, opalStack.model);
  });

  test("a provider error: Opal goes idle without agent_end; the session is idle within seconds, the error shown, the next prompt works", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    opalStack.model.enqueue({ error: { status: 500, message: "upstream exploded" } });
    const { sp } = await opalApi.open(page, "opal provider error", SessionPage);
    await sp.prompt("this request fails");
    await expect(sp.timeline.getByTestId("message-error").last()).toContainText("upstream exploded", {
      timeout: 20_000,
    });
    await sp.waitStatus("idle", 10_000);
    await sp.askWithReply(opalStack.model, "try again", "Recovered from the error.", { timeout: 20_000 });
  });

  test("an edit's structured diff (diff.ex) shows in the timeline and in the review", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    const rel = "opal-review.txt";
    fs.writeFileSync(path.join(opalStack.workspace, rel), "alpha\nbeta\ngamma\n");
    opalStack.model.enqueue(
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: rel, start: `2:${lineHash("beta")}`, new_string: "BETA by Opal" } },
        ],
      },
      { text: "Edited the file." },
    );
    const { sp: rp } = await opalApi.open(page, "opal diff", ReviewPage);
    await rp.ask("edit the second line", "Edited the file.", { timeout: 20_000 });
    const edit = rp.toolCards("edit").first();
    await expect(edit).toHaveAttribute("data-status", "completed");
    await rp.expand(edit);
    await expect(edit).toContainText("BETA by Opal");
    await expect(edit).toContainText("beta");
    const chip = page.getByTestId("turn-changes");
    await expect(chip).toHaveCount(1);
    await expect(chip).toContainText("+1");
    await chip.click();
    await expect(rp.panel).toBeVisible();
    const file = rp.reviewFile(rel);
    await expect(file).toHaveAttribute("data-status", "modified");
    await expect(file).toHaveAttribute("data-additions", "1");
    await expect(file).toHaveAttribute("data-deletions", "1");
    await expect(rp.panel.locator(`[data-testid="review-diff"][data-path="${rel}"]`)).toContainText("BETA by Opal");
  });

  test("Compact on a small session compacts it (keep_recent > 0: Opal ignores 0)", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    const maker = { api: opalApi, model: opalStack.model };
    const { rp } = await ReviewPage.afterTwoTurns(page, maker, OPAL_ID, "opal compact");
    await rp.menu("action-compact");
    await expect(rp.timeline).toContainText("Opal compacted the conversation", { timeout: 30_000 });
    await expect(rp.timeline).toContainText("[Conversation summary");
    await rp.askWithReply(opalStack.model, "go on", "After the summary.");
    // Opal's model starts from the summary now, not the first turn.
    const users = lastUserTexts(opalStack.model);
    expect(users[0]).toMatch(/^\[Conversation summary/);
    expect(users).not.toContain("first question");
  });

  test("a question (client/ask_user) answered with free text", async ({ page, opalApi, opalStack }) => {
    opalStack.model.enqueue(
      {
        toolCalls: [{ name: "ask_user", arguments: { question: "Which database?", choices: ["postgres", "sqlite"] } }],
      },
      { text: "Going with the answer." },
    );
    const { sp } = await opalApi.open(page, "opal question", SessionPage);
    await sp.prompt("ask me");
    const ui = new Interrupts(page);
    await expect(ui.question()).toContainText("Which database?");
    await expect(ui.option("postgres")).toBeVisible();
    await sp.waitStatus("waiting");
    await ui.question().getByTestId("question-custom-input").fill("duckdb, please");
    await ui.question().getByTestId("question-submit").click();
    await expect(ui.question()).toHaveCount(0);
    await expect(sp.assistantText().last()).toHaveText("Going with the answer.");
    const sent = opalStack.model.requests.at(-1)!.messages.find((m) => m.role === "tool");
    expect(String(sent?.content)).toBe("duckdb, please");
  });

  test("a confirmation (client/confirm) on a permission card", async ({ page, opalApi, opalStack }) => {
    opalStack.model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command: "echo confirmed-by-user" } }] },
      { text: "Ran after the confirmation." },
    );
    const s = await opalApi.createSession("opal confirm", CONFIRM_ID);
    const sp = await SessionPage.open(page, CONFIRM_ID, s.id);
    await sp.prompt("run it after asking");
    const card = new Interrupts(page).permission();
    await expect(card).toContainText("Run command?");
    await expect(card).toContainText("echo confirmed-by-user");
    // The buttons are the confirm's actions (allow, allow_session, deny).
    await expect(card.getByTestId("permission-allow-once")).toHaveAttribute("data-action", "allow");
    await expect(card.getByTestId("permission-allow-always")).toHaveAttribute("data-action", "allow_session");
    await expect(card.getByTestId("permission-reject")).toHaveAttribute("data-action", "deny");
    await card.getByTestId("permission-allow-once").click();
    await expect(card).toHaveCount(0);
    await expect(sp.toolCards("bash").first()).toHaveAttribute("data-status", "completed");
    await expect(sp.assistantText().last()).toHaveText("Ran after the confirmation.");
  });

  test("an input request (client/input, sensitive): a masked field; the value reaches Opal, not the page after it", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    opalStack.model.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "secret-token.txt", content: "" } }] },
      { text: "Stored it." },
    );
    const s = await opalApi.createSession("opal input", CONFIRM_ID);
    const sp = await SessionPage.open(page, CONFIRM_ID, s.id);
    await sp.prompt("store my token");
    const form = new InputFormPage(page);
    await expect(form.root).toContainText("Value to store in secret-token.txt");
    const field = form.root.getByTestId("input-text");
    await expect(field).toHaveAttribute("type", "password");
    await field.fill("tok-e2e-hidden-value");
    await form.submit.click();
    await expect(form.root).toHaveCount(0);
    await expect(sp.assistantText().last()).toHaveText("Stored it.");
    expect(fs.readFileSync(path.join(opalStack.workspace, "secret-token.txt"), "utf8")).toBe("tok-e2e-hidden-value");
    await page.reload();
    await expect(sp.assistantText().last()).toHaveText("Stored it.");
    expect(await page.content()).not.toContain("tok-e2e-hidden-value");
  });

  test("a sub-agent's timeline under its parent, and the plan from the tasks tool", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    opalStack.model.enqueue(
      {
        toolCalls: [
          {
            name: "tasks",
            arguments: {
              action: "batch",
              ops: [
                { action: "insert", label: "Scout the repository" },
                { action: "insert", label: "Write the report" },
              ],
            },
          },
        ],
      },
      // sub_agent.ex labels a sub-agent with its prompt.
      { toolCalls: [{ name: "sub_agent", arguments: { prompt: "scout: list the files here." } }] },
      { toolCalls: [{ name: "bash", arguments: { command: "echo scout-was-here" } }] },
      { text: "The scout found the files." },
      { text: "Plan made, scout back." },
    );
    const { s, sp } = await opalApi.open(page, "opal sub-agent", SessionPage);
    await sp.ask("plan, then send a scout", "Plan made, scout back.", { timeout: 30_000 });
    const task = sp.toolCards("task").first();
    await expect(task).toHaveAttribute("data-status", "completed");
    await expect(page.getByTestId("open-plan")).toContainText("0/2");
    await page.getByTestId("open-plan").click();
    await expect(page.getByTestId("todo-panel")).toHaveAttribute("data-count", "2");
    await expect(page.getByTestId("todo-panel")).toContainText("Scout the repository");

    const rp = new ReviewPage(page);
    await page.getByTestId("tree-button").click();
    const child = rp.treeNodes().and(page.locator('[data-relation="subagent"]'));
    await expect(child).toHaveCount(1);
    await expect(child).toContainText("scout");
    await child.click();
    await page.waitForURL((u) => !u.pathname.endsWith(s.id));
    await expect(sp.view).toHaveAttribute("data-loaded", "true");
    await expect(sp.messages("user").first()).toContainText("scout: list the files here.");
    await expect(sp.toolCards("bash").first()).toHaveAttribute("data-status", "completed");
    await expect(sp.assistantText().last()).toHaveText("The scout found the files.");
  });

  test("a sub-agent's question is raised at its parent and answered there", async ({ page, opalApi, opalStack }) => {
    opalStack.model.enqueue(
      { toolCalls: [{ name: "sub_agent", arguments: { prompt: "Ask which license to use." } }] },
      { toolCalls: [{ name: "ask_user", arguments: { question: "Which license?", choices: ["MIT", "Apache-2.0"] } }] },
      { text: "The user picked MIT." },
      { text: "License settled." },
    );
    const { sp } = await opalApi.open(page, "opal sub-agent question", SessionPage);
    await sp.prompt("let a sub-agent ask");
    const ui = new Interrupts(page);
    await expect(ui.question()).toContainText("Which license?");
    await ui.option("MIT").click();
    await ui.question().getByTestId("question-submit").click();
    await expect(ui.question()).toHaveCount(0);
    await expect(sp.assistantText().last()).toHaveText("License settled.");
    await expect(sp.toolCards("task").first()).toHaveAttribute("data-status", "completed");
  });

  test("a branch from an earlier message: the new session goes on from there, the old path stays", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    const maker = { api: opalApi, model: opalStack.model };
    const { rp, session: s } = await ReviewPage.afterTwoTurns(page, maker, OPAL_ID, "opal branch");
    await rp.messageAction(rp.messages("assistant").first(), "fork-message");
    await page.waitForURL((u) => !u.pathname.endsWith(s.id));
    await expect(rp.view).toHaveAttribute("data-loaded", "true");
    await expect.poll(() => rp.transcript()).toEqual(twoTurnsTranscript(1));
    await expect(page.getByTestId("forked-from")).toBeVisible();
    await rp.askWithReply(opalStack.model, "another second question", "A different second answer.");
    expect(JSON.stringify(opalStack.model.requests.at(-1)!.messages)).not.toContain("Second answer.");
    // The path the branch left is still there, as it was shown.
    await rp.goto(OPAL_ID, s.id);
    await expect.poll(() => rp.transcript()).toEqual(twoTurnsTranscript());
  });
});

test.describe("Opal settings", () => {
  test("without a login the backend needs one and shows Opal's device code and link; the preset is detected on PATH", async ({
    page,
  }) => {
    const settings = await BackendAuthPage.open(page);
    const device = "open https://github.com/login/device and enter the code FAKE-0PAL";
    await settings.rowWhen(LOGIN_ID, "auth-required", device);
    await expect(settings.row(OPAL_ID)).toHaveAttribute("data-status", "ready");
    await expect(page.getByTestId("preset-opal")).toHaveAttribute("data-available", "true");
  });

  // After the device-code test: the same backend, whose device flow still holds Opal's loop, is given a key instead.
  test("an API-key provider is set up from Settings (auth/set_key): the backend is ready, the key never shown", async ({
    page,
    opalApi,
    opalStack,
  }) => {
    const settings = await BackendAuthPage.open(page);
    const keys = "Or set an API key for Anthropic, OpenAI, Google Gemini below";
    const row = await settings.rowWhen(LOGIN_ID, "auth-required", keys);
    await expect(row.locator('[data-testid="backend-provider"][data-provider="anthropic"]')).toHaveAttribute(
      "data-ready",
      "false",
    );
    await row.getByTestId("backend-api-key-provider").selectOption("anthropic");
    await row.getByTestId("backend-api-key").fill("sk-ant-e2e-secret-key");
    await row.getByTestId("backend-api-key-save").click();
    await expect(row.getByTestId("backend-api-key-result")).toHaveText("Key saved", { timeout: 30_000 });
    await expect(row).toHaveAttribute("data-status", "ready", { timeout: 20_000 });
    await expect(row.locator('[data-testid="backend-provider"][data-provider="anthropic"]')).toHaveAttribute(
      "data-ready",
      "true",
    );
    await expect(row.getByTestId("backend-api-key")).toHaveValue("");
    expect(await page.content()).not.toContain("sk-ant-e2e-secret-key");
    expect(JSON.stringify(await opalStack.backend(LOGIN_ID))).not.toContain("sk-ant-e2e-secret-key");
    // Opal kept it in its own settings; the backend takes sessions now.
    expect(
      JSON.parse(fs.readFileSync(path.join(opalStack.dataDir, "opal-login-home", "settings.json"), "utf8")),
    ).toEqual({ anthropic_api_key: "sk-ant-e2e-secret-key" });
    await opalApi.createSession("opal keyed", LOGIN_ID);
  });
});
