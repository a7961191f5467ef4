/**
 * The A2A end-to-end tests (run by e2e/a2a.spec.ts and e2e/a2a-0.3.spec.ts). A2A agents in the browser (docs/backends/a2a.md): through the opencode-a2a bridge to a real
 * `opencode serve` (testkit/a2a-opencode-bridge.ts) and through the plain agent
 * (testkit/a2a-plain-agent.ts), both on the test A2A server and driven by the scripted model;
 * the wrong token, the token kept from the browser, and adding an agent in the settings.
 */
import { A2aSettings } from "./pages/a2a-settings";
import { Interrupts } from "./pages/interrupts";
import { SessionPage } from "./pages/session-page";
import { expect, test } from "./fixtures/a2a";
import { OC_ID, PLAIN_ID, WRONG_ID, type A2aStack } from "../testkit/a2a-stack";
import type { ScriptedTurn } from "../testkit/scripted-model";
import { choice, questionCall } from "../testkit/scripted-turns";
import { setTheme } from "./pages/theme";

const TURN = { timeout: 45_000 };
const bash = (command: string, description = "Run it"): ScriptedTurn => ({
  toolCalls: [{ name: "bash", arguments: { command, description } }],
});
const queued = (s: A2aStack) => s.model.requests.filter((r) => r.source === "queue");

/**
 * Every A2A test, once per spec file: e2e/a2a.spec.ts runs them against 1.0-only agents,
 * e2e/a2a-0.3.spec.ts against 0.3-only agents (the version is a worker option, set at the top of each).
 */
export function a2aSuite(version: "1.0" | "0.3") {
  test.describe(`A2A ${version}`, () => {
    test.describe("A2A: opencode-a2a bridge", () => {
      test("a streamed reply with reasoning and a bash tool call", async ({ page, a2aApi, a2aStack }) => {
        const reply = `The command printed the marker. ${Array.from({ length: 14 }, (_, i) => `word${i}`).join(" ")}.`;
        a2aStack.model.enqueue(
          {
            reasoning: "I should run the command with bash first.",
            ...bash("echo a2a-e2e-tool-output", "Print the marker"),
          },
          { text: reply, chunks: 16, delayMs: 90 },
        );
        const s = await a2aApi.createSession(OC_ID, "a2a stream");
        const sp = await SessionPage.open(page, OC_ID, s.id);
        await sp.prompt("run the marker command");
        await expect(sp.messages("user").first()).toContainText("run the marker command");
        const tool = sp.toolCards("bash").first();
        await expect(tool).toHaveAttribute("data-status", "completed", TURN);
        await sp.expectStreamed(reply, 30_000);
        await sp.waitStatus("idle");
        await sp.expand(tool);
        await expect(tool.getByTestId("tool-output")).toContainText("a2a-e2e-tool-output");
        const reasoning = sp.timeline.locator('[data-testid="block"][data-kind="reasoning"]');
        await expect(reasoning.first()).toBeVisible();
        await sp.expand(reasoning.first());
        await expect(reasoning.first()).toContainText("I should run the command with bash first.");
        // the final status's usage reached the session
        await expect(page.getByTestId("usage")).toBeVisible();
        await page.screenshot({ path: test.info().outputPath("a2a-stream.png") });
      });

      test("a permission answered after a page reload while it waits", async ({ page, a2aApi, a2aStack }) => {
        a2aStack.model.enqueue(bash("echo a2a-perm-marker", "Print the permission marker"), {
          text: "Allowed, and it ran.",
        });
        const s = await a2aApi.createSession(OC_ID, "a2a permission");
        const sp = await SessionPage.open(page, OC_ID, s.id);
        await sp.prompt("run the permission marker");
        const card = page.getByTestId("permission-card");
        await expect(card).toBeVisible(TURN);
        await expect(card).toContainText("echo a2a-perm-marker");
        await sp.waitStatus("waiting");
        await page.reload();
        await expect(sp.view).toHaveAttribute("data-loaded", "true");
        await expect(card).toBeVisible();
        await expect(card).toHaveCount(1);
        await card.getByTestId("permission-allow-once").click();
        await expect(card).toHaveCount(0);
        const tool = sp.toolCards("bash").last();
        await expect(tool).toHaveAttribute("data-status", "completed", TURN);
        await expect(sp.assistantText().last()).toHaveText("Allowed, and it ran.", TURN);
        await sp.waitStatus("idle");
        await sp.expand(tool);
        await expect(tool.getByTestId("tool-output")).toContainText("a2a-perm-marker");
      });

      test("a question answered after a page reload while it waits", async ({ page, a2aApi, a2aStack }) => {
        a2aStack.model.enqueue(
          questionCall([
            choice("Which color should the A2A button be?", "Color", { red: "Choose red", blue: "Choose blue" }),
          ]),
          { text: "Blue it is, over A2A." },
        );
        const s = await a2aApi.createSession(OC_ID, "a2a question");
        const sp = await SessionPage.open(page, OC_ID, s.id);
        const ui = new Interrupts(page);
        await sp.prompt("ask me about the color");
        await expect(ui.question()).toBeVisible(TURN);
        await expect(ui.question()).toContainText("Which color should the A2A button be?");
        await sp.waitStatus("waiting");
        await page.reload();
        await expect(sp.view).toHaveAttribute("data-loaded", "true");
        await expect(ui.question()).toHaveCount(1);
        await ui.option("blue").click();
        await ui.question().getByTestId("question-submit").click();
        await expect(ui.question()).toHaveCount(0);
        await expect(sp.assistantText().last()).toHaveText("Blue it is, over A2A.", TURN);
        await sp.waitStatus("idle");
      });

      test("the model is picked per prompt", async ({ page, a2aApi, a2aStack }) => {
        const s = await a2aApi.createSession(OC_ID, "a2a model");
        const sp = await SessionPage.open(page, OC_ID, s.id);
        const picker = page.getByTestId("model-picker");
        await expect(picker.locator("option")).toHaveCount(2);
        await picker.selectOption("fake/fake-model-2");
        a2aStack.model.enqueue({ text: "Answered by model two over A2A." });
        await sp.prompt("which model?");
        await expect(sp.assistantText().last()).toHaveText("Answered by model two over A2A.", TURN);
        expect(queued(a2aStack).map((r) => r.model)).toEqual(["fake-model-2"]);
        await sp.waitStatus("idle");
        await picker.selectOption("fake/fake-model");
        a2aStack.model.enqueue({ text: "And model one." });
        await sp.prompt("and now?");
        await expect(sp.assistantText().last()).toHaveText("And model one.", TURN);
        expect(queued(a2aStack).map((r) => r.model)).toEqual(["fake-model-2", "fake-model"]);
      });

      test("a long history is paged in from opencode.sessions.messages.list, and exports whole", async ({
        page,
        request,
        a2aApi,
        a2aStack,
      }) => {
        // 130 prompts without replies, written straight into OpenCode: more than one page (100).
        const created = await a2aStack.oc.session.create({ title: "a2a long history" });
        const id = created.data!.id;
        for (let i = 0; i < 130; i++)
          await a2aStack.oc.session.prompt({
            sessionID: id,
            noReply: true,
            parts: [{ type: "text", text: `history line ${i}` }],
          });
        const snap = await a2aApi.snapshot(OC_ID, id);
        // The console's first load holds the newest 40 on every backend (FIRST_PAGE_MESSAGES,
        // server/backends/shared/session-list.ts); the rest page in as the reader scrolls up.
        expect(snap.messages.length).toBe(40);
        expect(snap.olderCursor).toBeTruthy();
        const sp = await SessionPage.open(page, OC_ID, id);
        await expect(sp.messages("user").last()).toContainText("history line 129");
        await sp.scrollToStart(60_000);
        await expect(sp.messages("user").filter({ hasText: /^history line 0$/ })).toHaveCount(1);
        // the export pages in pages opencode-a2a answers (≤ 100) and holds every message
        const exported = (await (await request.get(`${a2aApi.base(OC_ID, id)}/export?format=json`)).json()) as {
          messages: { id: string }[];
        };
        expect(exported.messages.length).toBe(130);
        expect(new Set(exported.messages.map((m) => m.id)).size).toBe(130);
      });

      test("Stop cancels the task", async ({ page, a2aApi, a2aStack }) => {
        a2aStack.model.enqueue({
          text: Array.from({ length: 40 }, (_, i) => `chunk${i} `).join(""),
          chunks: 40,
          delayMs: 250,
        });
        const { sp } = await a2aApi.openSession(page, SessionPage, OC_ID, "a2a stop");
        await sp.promptUntil("go slowly", "chunk2", TURN);
        await sp.stop.click();
        await sp.waitStatus("idle", 20_000);
        await expect(sp.timeline.getByTestId("message-stopped")).toBeVisible();
        await expect(sp.assistantText().last()).not.toContainText("chunk39");
        await sp.askWithReply(a2aStack.model, "and now?", "After the stop.", TURN);
      });

      test("the A2A server restarted mid-turn: the turn ends visibly, nothing duplicated, and the next prompt works", async ({
        page,
        a2aApi,
        a2aStack,
      }) => {
        const words = Array.from({ length: 30 }, (_, i) => `w${i}`);
        a2aStack.model.enqueue({ text: words.join(" "), chunks: 30, delayMs: 150 });
        const { sp } = await a2aApi.openSession(page, SessionPage, OC_ID, "a2a restart");
        await sp.promptUntil("a long reply, then a restart", "w3", TURN);
        await a2aStack.bridgeServer.restart();
        // OpenCode goes on with the turn: the console follows it through the history and says the stream was lost.
        await sp.waitStatus("idle", 60_000);
        const finished = sp.assistantText().filter({ hasText: "w29" });
        const failed = sp.timeline.getByTestId("message-error");
        await expect(finished.or(failed).first()).toBeVisible();
        await expect(sp.messages("user")).toHaveCount(1);
        await expect(sp.assistantText().filter({ hasText: "w0 w1" })).toHaveCount(1);
        await page.screenshot({ path: test.info().outputPath("a2a-restart.png") });
        await sp.askWithReply(a2aStack.model, "still there?", "Alive after the restart.", TURN);
        await expect(sp.messages("user")).toHaveCount(2);
        await expect(sp.assistantText().filter({ hasText: "w0 w1" })).toHaveCount(1);
      });
    });

    test.describe("A2A: plain agent", () => {
      test("a streamed reply", async ({ page, a2aApi, a2aStack }) => {
        const reply = `Plainly streamed. ${Array.from({ length: 14 }, (_, i) => `word${i}`).join(" ")}.`;
        a2aStack.model.enqueue({ text: reply, chunks: 16, delayMs: 90 });
        const s = await a2aApi.createSession(PLAIN_ID, "plain stream");
        const sp = await SessionPage.open(page, PLAIN_ID, s.id);
        await sp.prompt("answer slowly");
        await sp.expectStreamed(reply, 30_000);
        await sp.waitStatus("idle");
      });

      test("an input-required task answered on the same task", async ({ page, a2aApi, a2aStack }) => {
        a2aStack.model.enqueue(
          { toolCalls: [{ name: "ask_user", arguments: { question: "What is the project called?" } }] },
          { text: "The project is called Bluebird." },
        );
        const s = await a2aApi.createSession(PLAIN_ID, "plain input");
        const sp = await SessionPage.open(page, PLAIN_ID, s.id);
        await sp.prompt("name the project");
        const form = sp.timeline.getByTestId("input-form");
        await expect(form).toBeVisible(TURN);
        await expect(form).toContainText("What is the project called?");
        await sp.waitStatus("waiting");
        await form.getByTestId("input-text").fill("Bluebird");
        await form.getByTestId("input-submit").click();
        await expect(form).toHaveCount(0);
        await expect(sp.assistantText().last()).toHaveText("The project is called Bluebird.", TURN);
        await sp.waitStatus("idle");
        // the answer went to the model as the tool's result, on the same conversation
        const last = queued(a2aStack).at(-1)!;
        expect(JSON.stringify(last.messages)).toContain("Bluebird");
        // the reply came within the answered turn: two prompts so far, the reply after the answer
        await expect(sp.messages("user")).toHaveCount(2);
        await expect(sp.messages("assistant").last()).toContainText("The project is called Bluebird.");
        // the next prompt starts a new task in the same context; its failure shows the agent's message
        a2aStack.model.enqueue({ error: { status: 500, message: "the scripted model is overloaded now" } });
        await sp.prompt("and one more thing");
        await expect(sp.timeline.getByTestId("message-error").last()).toContainText(
          "the scripted model is overloaded now",
          TURN,
        );
        await sp.waitStatus("idle");
        await expect(sp.messages("user")).toHaveCount(3);
        await expect(sp.assistantText().filter({ hasText: "The project is called Bluebird." })).toHaveCount(1);
      });

      test("a failed task is shown as failed, with the agent's message", async ({ page, a2aApi, a2aStack }) => {
        a2aStack.model.enqueue({ error: { status: 500, message: "the scripted model is overloaded" } });
        const s = await a2aApi.createSession(PLAIN_ID, "plain failed");
        const sp = await SessionPage.open(page, PLAIN_ID, s.id);
        await sp.prompt("this will fail");
        await expect(sp.timeline.getByTestId("message-error")).toContainText("the scripted model is overloaded", TURN);
        await sp.waitStatus("idle");
      });

      test("a session goes on after a console restart", async ({ page, a2aApi, a2aStack }) => {
        a2aStack.model.enqueue({ text: "Got it: the code word is periwinkle." });
        const s = await a2aApi.createSession(PLAIN_ID, "plain restart");
        const sp = await SessionPage.open(page, PLAIN_ID, s.id);
        await sp.ask("Remember the code word periwinkle.", "Got it: the code word is periwinkle.", TURN);

        await a2aStack.restartConsole();
        await sp.goto(PLAIN_ID, s.id);
        await expect(sp.messages("user")).toHaveCount(1);
        await expect(sp.assistantText().last()).toHaveText("Got it: the code word is periwinkle.");
        a2aStack.model.enqueue({ text: "The code word was periwinkle." });
        await sp.prompt("What was the code word?");
        await expect(sp.assistantText().last()).toHaveText("The code word was periwinkle.", TURN);
        // the same A2A context: the agent gave the model the earlier turns
        expect(JSON.stringify(queued(a2aStack).at(-1)!.messages)).toContain("Remember the code word periwinkle.");
      });
    });

    test.describe("A2A: tokens and settings", () => {
      test("a wrong token is a clear auth-required state, and no token reaches the browser", async ({
        page,
        request,
        a2aApi,
        a2aStack,
      }) => {
        const secrets = Object.values(a2aStack.tokens);
        const st = new A2aSettings(page);
        await page.goto("/settings");
        await expect(st.row(WRONG_ID)).toHaveAttribute("data-status", "auth-required");
        await expect(st.row(WRONG_ID).getByTestId("backend-error")).toContainText("refused the token");
        await expect(st.row(OC_ID)).toHaveAttribute("data-status", "ready");
        // the card is in the backend's details
        await expect(st.row(OC_ID).getByTestId("agent-card-skills")).toContainText("Chat with OpenCode");
        // (a 1.0 agent names its extensions by specification URL, a 0.3 one by URN)
        await expect(st.row(OC_ID).getByTestId("agent-card-extensions")).toContainText("session-binding");
        await expect(st.row(OC_ID).getByTestId("agent-card-extensions")).toContainText(
          a2aStack.version === "1.0" ? "extension-specifications.md#" : "urn:a2a:",
        );
        // the sidebar lists opencode-a2a's sessions (opencode.sessions.list) and the plain agent's (kept by the console)
        const ocSession = (await a2aStack.oc.session.create({ title: "listed by opencode-a2a" })).data!;
        const plainSession = await a2aApi.createSession(PLAIN_ID, "kept by the console");
        await page.reload();
        for (const [id, sid, title] of [
          [OC_ID, ocSession.id, "listed by opencode-a2a"],
          [PLAIN_ID, plainSession.id, "kept by the console"],
        ] as const) {
          await expect(
            page.locator(
              `[data-testid="backend-section"][data-backend-id="${id}"] [data-testid="session-row"][data-session-id="${sid}"]`,
            ),
          ).toContainText(title);
        }
        await st.row(OC_ID).screenshot({ path: test.info().outputPath("a2a-backend-row.png") });
        // a prompt to it is an error that says why, not a crash
        const s = await a2aApi.createSession(WRONG_ID, "wrong token");
        const r = await request.post(`${a2aApi.base(WRONG_ID, s.id)}/prompt`, {
          data: { parts: [{ type: "text", text: "hello?" }] },
        });
        expect(r.status()).toBeGreaterThanOrEqual(400);
        const body = await r.text();
        expect((JSON.parse(body) as { error: { message: string } }).error.message).toContain("refused the token");
        // the token is nowhere in what the browser gets
        const answers = [
          body,
          await (await request.get(`${a2aStack.url}/api/backends`)).text(),
          await (await request.get(`${a2aStack.url}/api/events/hello`)).text(),
          await page.content(),
        ];
        for (const id of [OC_ID, PLAIN_ID, WRONG_ID])
          answers.push(await (await request.get(`${a2aStack.url}/api/backends/${id}`)).text());
        for (const a of answers) for (const t of secrets) expect(a).not.toContain(t);
      });

      test("adding an A2A agent: the card is read by the server and shown before saving", async ({
        page,
        request,
        a2aStack,
      }) => {
        const st = new A2aSettings(page);
        await page.addInitScript(() => localStorage.setItem("sb-theme", "dark"));
        await page.goto("/settings");
        // a wrong token: the card is shown, and the token refused
        await st.url.fill(a2aStack.bridgeServer.url);
        await st.token.fill("not-the-token");
        await st.fetchCard.click();
        await expect(st.tokenStatus).toHaveAttribute("data-token", "refused");
        // the right one
        await st.token.fill(a2aStack.tokens.opencode);
        await expect(st.preview).toHaveCount(0);
        await expect(st.add).toBeDisabled();
        const answer = page.waitForResponse((r) => r.url().endsWith("/api/a2a/card"));
        await st.fetchCard.click();
        const cardBody = await (await answer).text();
        expect(cardBody).not.toContain(a2aStack.tokens.opencode);
        await expect(st.tokenStatus).toHaveAttribute("data-token", "accepted");
        await expect(st.preview.getByTestId("agent-card-name")).toHaveText("OpenCode A2A");
        await expect(st.preview.getByTestId("agent-card-version")).toHaveText("v1.0.0-test");
        await expect(st.preview.getByTestId("agent-card-capabilities")).toContainText("streaming");
        await expect(st.preview.getByTestId("agent-card-skill")).toHaveCount(6);
        await expect(st.preview.getByTestId("agent-card-extensions")).toContainText("interactive-interrupt");
        await st.label.fill("opencode again");
        await st.preview.scrollIntoViewIfNeeded();
        await st.form.screenshot({ path: test.info().outputPath("a2a-add-dark.png") });
        await setTheme(page, "light");
        await st.form.screenshot({ path: test.info().outputPath("a2a-add-light.png") });
        await setTheme(page, "dark");
        await st.add.click();
        await expect(st.form.getByTestId("a2a-added")).toContainText("opencode again");
        await expect(st.row("opencode-again")).toHaveAttribute("data-status", "ready", { timeout: 30_000 });
        await expect(st.row("opencode-again").getByTestId("agent-card-skills")).toContainText("Chat with OpenCode");
        await page.screenshot({ path: test.info().outputPath("a2a-settings-dark.png"), fullPage: true });
        expect(await page.content()).not.toContain(a2aStack.tokens.opencode);
        const stored = await request.get(`${a2aStack.url}/api/backends/opencode-again`);
        expect(await stored.text()).not.toContain(a2aStack.tokens.opencode);
        // an unreachable URL is an error that says so
        await st.url.fill("http://127.0.0.1:9/");
        await st.fetchCard.click();
        await expect(st.error).toContainText("Could not reach the agent");
        expect((await request.delete(`${a2aStack.url}/api/backends/opencode-again`)).ok()).toBe(true);
      });
    });
  });
}
