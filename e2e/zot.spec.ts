/**
 * zot in the browser (docs/backends/zot.md), against the protocol-faithful fake `zot rpc`
 * (testkit/fake-zot.ts) on PATH and the scripted model: the shared flows (e2e/shared-flows.ts; after
 * a restart the conversation goes on in a new process given the earlier turns), a tool call with its
 * output, the session list, the agent killed mid-turn, the token handshake, models.
 */
import fs from "node:fs";
import path from "node:path";
import { SessionPage } from "./pages/session-page";
import { expect, test } from "./fixtures/zot";
import { STALE_ID, STALE_SECRET, ZOT_ID, type ZotStack } from "../testkit/fake-zot-stack";
import { answersAfterCrash, killMidTurn, sharedFlows } from "./shared-flows";
import { lastUserTexts } from "../testkit/scripted-turns";
import { setTheme } from "./pages/theme";
import { BackendAuthPage } from "./pages/backend-auth";

const notices = (sp: SessionPage) => sp.timeline.locator('[data-testid="block"][data-kind="notice"]');

test.describe("zot", () => {
  sharedFlows(test, {
    backendId: ZOT_ID,
    // zot reports usage per call with running totals: the usage chip shows it
    usageChip: "usage",
    otherSecrets: () => [STALE_SECRET],
    // The new process was given the earlier conversation over zot's stdin, ahead of the prompt, and
    // never on a command line.
    async afterRestart(sp, stack) {
      await expect(notices(sp).last()).toContainText("New zot process for this session");
      await expect(notices(sp).last()).toContainText("all 2 messages");
      const users = stack.model.requests
        .at(-1)!
        .messages.filter((m) => m.role === "user")
        .map((m) => JSON.stringify(m.content));
      expect(users).toHaveLength(1);
      expect(users[0]).toContain("Remember the code word periwinkle.");
      expect(users[0]).toContain("Noted: the code word is periwinkle.");
      expect(users[0]).toContain("What was the code word?");
      const argv = (stack as ZotStack).zotArgvs();
      expect(argv.length).toBeGreaterThan(0);
      for (const a of argv) {
        expect(a).not.toContain("periwinkle");
        expect(a).not.toContain("--append-system-prompt");
      }
    },
  });

  test("a bash tool call with its streamed output and exit code, and a file written in the session's directory", async ({
    page,
    zotApi,
    zotStack,
  }) => {
    zotStack.model.enqueue(
      {
        text: "Running it.",
        toolCalls: [{ name: "bash", arguments: { command: "echo zot-e2e-marker && echo second line" } }],
      },
      { toolCalls: [{ name: "write", arguments: { path: "zot-notes.md", content: "# Notes\n\nWritten by zot.\n" } }] },
      { text: "Both done." },
    );
    const s = await zotApi.createSession("zot tools");
    const sp = await SessionPage.open(page, ZOT_ID, s.id);
    await sp.prompt("run the marker and write notes");
    const bash = sp.toolCards("bash").first();
    await expect(bash).toHaveAttribute("data-status", "completed", { timeout: 20_000 });
    await sp.expand(bash);
    await expect(bash.getByTestId("tool-output")).toContainText("zot-e2e-marker");
    await expect(bash.getByTestId("tool-output")).toContainText("second line");
    await expect(bash.getByTestId("tool-output")).not.toContainText("[exit 0]");
    await expect(bash.getByTestId("exit-code")).toContainText("exit 0");
    const write = sp.toolCards("write").first();
    await expect(write).toHaveAttribute("data-status", "completed");
    await expect(sp.assistantText().last()).toHaveText("Both done.");
    await sp.waitStatus("idle");
    expect(fs.readFileSync(path.join(zotStack.workspace, "zot-notes.md"), "utf8")).toBe("# Notes\n\nWritten by zot.\n");
  });

  test("the session list is the console's: listed, searched, opened", async ({ page, zotApi }) => {
    const a = await zotApi.createSession("zot listed alpha");
    const b = await zotApi.createSession("zot listed beta");
    await page.goto("/");
    const section = page.locator(`[data-testid="backend-section"][data-backend-id="${ZOT_ID}"]`);
    await expect(section.locator(`[data-testid="session-row"][data-session-id="${a.id}"]`)).toContainText(
      "zot listed alpha",
    );
    await expect(section.locator(`[data-testid="session-row"][data-session-id="${b.id}"]`)).toContainText(
      "zot listed beta",
    );
    await page.getByTestId("session-search").fill("zot listed beta");
    await expect(section.locator(`[data-testid="session-row"][data-session-id="${b.id}"]`)).toBeVisible();
    await expect(section.locator(`[data-testid="session-row"][data-session-id="${a.id}"]`)).toHaveCount(0);
    await section.locator(`[data-testid="session-row"][data-session-id="${b.id}"]`).click();
    await expect(page).toHaveURL(new RegExp(`/sessions/${ZOT_ID}/${b.id}$`));
    await expect(page.getByTestId("session-title")).toHaveText("zot listed beta");
  });

  test("an `error` from zot in the middle of a reply is a notice, and the reply completes", async ({
    page,
    zotApi,
    zotStack,
  }) => {
    zotStack.model.enqueue({ text: "The whole reply arrives despite the hiccup.", chunks: 6, delayMs: 40 });
    const s = await zotApi.createSession("zot non-fatal error");
    const sp = await SessionPage.open(page, ZOT_ID, s.id);
    await sp.prompt("answer through a zot-nonfatal-error");
    await expect(sp.assistantText().last()).toHaveText("The whole reply arrives despite the hiccup.", {
      timeout: 20_000,
    });
    await sp.waitStatus("idle");
    await expect(notices(sp).last()).toContainText("zot reported an error: provider rate limit: retrying the stream");
    await expect(sp.timeline.getByTestId("message-error")).toHaveCount(0);
  });

  test("killing zot mid-turn shows the failure, and the next prompt works in a new process", async ({
    page,
    zotApi,
    zotStack,
  }) => {
    const dir = path.join(zotStack.workspace, "crash-dir");
    fs.mkdirSync(dir, { recursive: true });
    const s = await zotApi.createSession("zot crash", { directory: dir });
    const sp = await SessionPage.open(page, ZOT_ID, s.id);
    const pid = await killMidTurn(sp, zotStack.model, () => {
      const running = zotStack.zotPid(dir);
      expect(running, "the session's zot process").toBeTruthy();
      process.kill(running!, "SIGKILL");
      return running;
    });
    const backend = await zotStack.backend(ZOT_ID);
    expect(backend.status).toBe("ready");
    expect(backend.process!.restarts).toBeGreaterThanOrEqual(1);
    await answersAfterCrash(sp, zotStack.model);
    await expect(notices(sp).last()).toContainText("New zot process for this session");
    expect(zotStack.zotPid(dir)).not.toBe(pid);
  });

  test("Compact from the session menu; forking is not zot's", async ({ page, zotApi, zotStack }) => {
    zotStack.model.enqueue({ text: "A reply worth compacting." });
    const s = await zotApi.createSession("zot compact");
    const sp = await SessionPage.open(page, ZOT_ID, s.id);
    await sp.ask("say something to compact", "A reply worth compacting.");
    await expect(sp.messages("user").first().getByTestId("fork-message")).toHaveCount(0);
    await page.getByTestId("session-menu").click();
    await expect(page.getByTestId("action-fork")).toHaveAttribute("title", /zot cannot fork sessions/);
    await page.getByTestId("action-compact").click();
    await expect(sp.timeline.getByTestId("compaction-marker")).toContainText("Conversation compacted", {
      timeout: 20_000,
    });
    await expect(sp.assistantText().last()).toContainText("The user asked");
    await sp.waitStatus("idle");
    zotStack.model.enqueue({ text: "Going on after the summary." });
    await sp.prompt("go on");
    await expect(sp.assistantText().last()).toHaveText("Going on after the summary.");
    // zot's own transcript is the summary now: the model sees it, not the earlier turn
    const users = lastUserTexts(zotStack.model);
    expect(users[0]).toContain("Summary of the conversation so far");
    expect(users).not.toContain("say something to compact");
  });

  test("a prompt picks another model of zot's provider (set_model)", async ({ page, zotApi, zotStack }) => {
    const s = await zotApi.createSession("zot model");
    const sp = await SessionPage.open(page, ZOT_ID, s.id);
    const picker = page.getByTestId("model-picker");
    await expect(picker.locator("option")).toHaveText(["fake-model", "fake-model-2"]);
    await picker.selectOption({ label: "fake-model-2" });
    zotStack.model.enqueue({ text: "Answered by the second model." });
    await sp.prompt("which model?");
    await expect(sp.assistantText().last()).toHaveText("Answered by the second model.");
    expect(zotStack.model.requests.at(-1)!.model).toBe("fake-model-2");
    await expect
      .poll(async () => (await zotApi.snapshot(s.id)).session.model)
      .toEqual({ provider: "openai", id: "fake-model-2" });
  });
});

test.describe("zot settings", () => {
  test("a wrong token is a clear start-up error; the working backend is ready, its secrets masked, the preset detected on PATH", async ({
    page,
    zotApi,
    zotStack,
  }) => {
    const settings = await BackendAuthPage.open(page);
    const stale = settings.row(STALE_ID);
    await expect(stale).toHaveAttribute("data-status", "down");
    await expect(stale.getByTestId("backend-error")).toContainText(
      'refused the console\'s ZOTCORE_RPC_TOKEN ("invalid token")',
    );
    await stale.getByTestId("backend-logs-toggle").click();
    await expect(stale.getByTestId("backend-logs")).toContainText("zot: rpc: bad auth token");
    const ok = settings.row(ZOT_ID);
    await expect(ok).toHaveAttribute("data-status", "ready");
    await expect(ok.getByTestId("backend-env")).toContainText("OPENAI_API_KEY=***");
    expect(await page.content()).not.toContain("sk-scripted-zot");
    await expect(page.getByTestId("preset-zot")).toHaveAttribute("data-available", "true");

    // A prompt to the refused backend fails with the same reason in its timeline.
    const s = await zotApi.createSession("zot refused", { backendId: STALE_ID });
    const r = await page.request.post(`/api/backends/${STALE_ID}/sessions/${s.id}/prompt`, {
      data: { parts: [{ type: "text", text: "hello?" }] },
      headers: { origin: zotStack.url },
    });
    expect(r.status()).toBe(202);
    const sp = new SessionPage(page);
    await page.goto(`/sessions/${STALE_ID}/${s.id}`);
    await expect(sp.timeline.getByTestId("message-error").last()).toContainText("invalid token", { timeout: 20_000 });
  });
});

test.describe("zot screenshots", () => {
  /** Regenerates docs/screenshots/zot-session-{dark,light}.png: `SCREENSHOTS=1 npx playwright test e2e/zot.spec.ts -g screenshots`. */
  test.skip(!process.env.SCREENSHOTS, "screenshots are generated on demand");

  test("a zot session going on after a console restart, dark and light", async ({ page, zotApi, zotStack }) => {
    const out = (name: string) => path.join(import.meta.dirname, "..", "docs", "screenshots", name);
    zotStack.model.enqueue(
      {
        text: "Let me look at the repository first.",
        toolCalls: [{ name: "bash", arguments: { command: "git log --oneline | head -3 && ls" } }],
      },
      {
        toolCalls: [
          {
            name: "write",
            arguments: { path: "BUILD.md", content: "# Build\n\nNo build yet: the repository holds a README only.\n" },
          },
        ],
      },
      { text: "The repository has one commit and a README. I wrote **BUILD.md** with what I found." },
    );
    const s = await zotApi.createSession("Summarize the build setup");
    const sp = new SessionPage(page);
    await page.addInitScript(() => localStorage.setItem("sb-theme", "dark"));
    await sp.goto(ZOT_ID, s.id);
    await sp.askContaining("How does this project build? Write down what you find.", "I wrote", { timeout: 30_000 });

    await zotStack.restartConsole();
    zotStack.model.enqueue({ text: "Yes: BUILD.md says the repository has no build yet, only a README." });
    await sp.goto(ZOT_ID, s.id);
    await sp.askContaining("Still there after the restart? What did BUILD.md say?", "no build yet", {
      timeout: 30_000,
    });
    await sp.expand(sp.toolCards("bash").first());
    await page.waitForTimeout(800);
    await page.screenshot({ path: out("zot-session-dark.png") });
    await setTheme(page, "light");
    await page.waitForTimeout(500);
    await page.screenshot({ path: out("zot-session-light.png") });
  });
});
