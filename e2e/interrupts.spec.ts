import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { type Api, expect, test } from "./fixtures/opencode";
import { Interrupts } from "./pages/interrupts";
import { SessionPage } from "./pages/session-page";
import { startExternalSetup } from "../testkit/external-opencode";
import { bashCall as bash, questionCall as question, taskCall, toolResults } from "../testkit/scripted-turns";

/** How most tests here start: a new session titled `title`, opened, and `text` sent (its turns queued first). */
async function started(page: Page, api: Api, title: string, text: string) {
  const { s, sp } = await api.open(page, title, SessionPage);
  await sp.prompt(text);
  return { s, sp, ui: new Interrupts(page) };
}

test.describe("interrupts: permissions and questions", () => {
  test("allow once: the command runs", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue(bash("echo ask-once"), { text: "It ran." });
    const { sp, ui } = await started(page, api, "perm once", "run it");
    await expect(ui.permission()).toBeVisible();
    await expect(ui.permission()).toContainText("echo ask-once");
    await expect(sp.toolCards("bash").first()).toHaveAttribute("data-status", "awaiting-approval");
    await expect(sp.status).toHaveAttribute("data-status", "waiting");
    await expect(ui.inboxItems()).toHaveCount(1);
    await expect(page).toHaveTitle(/^\(1\) /);
    // The card has focus: the keyboard answers it.
    await expect(ui.permission()).toBeFocused();
    await page.keyboard.press("1");
    await expect(ui.permission()).toHaveCount(0);
    await expect(sp.toolCards("bash").first()).toHaveAttribute("data-status", "completed");
    await expect(sp.toolCards("bash").first().getByTestId("tool-output")).toContainText("ask-once");
    await expect(sp.assistantText().last()).toHaveText("It ran.");
    await expect(ui.inboxItems()).toHaveCount(0);
    await expect(page).not.toHaveTitle(/^\(\d+\) /);
  });

  test("an edit asks with the file and its diff; allowed, the file is written", async ({ page, api, stack }) => {
    const file = path.join(stack.workspace, "ask-edit.txt");
    stack.model.enqueue(
      { toolCalls: [{ name: "write", arguments: { filePath: file, content: "first line\nsecond line\n" } }] },
      { text: "Written." },
    );
    const { sp, ui } = await started(page, api, "perm edit", "write the file");
    await expect(ui.permission()).toBeVisible();
    await expect(ui.permission()).toContainText("edit");
    // The change itself, before anyone decides: the file's name and the lines it adds.
    await expect(ui.permission()).toContainText("ask-edit.txt");
    await expect(ui.permission()).toContainText("first line");
    await expect(ui.permission()).toContainText("second line");
    expect(fs.existsSync(file)).toBe(false);
    await ui.permission().getByTestId("permission-allow-once").click();
    await expect(sp.assistantText().last()).toHaveText("Written.");
    expect(fs.readFileSync(file, "utf8")).toBe("first line\nsecond line\n");
  });

  test("always: a second matching command does not ask again", { tag: "@api" }, async ({ page, api, stack }) => {
    // OpenCode keeps "always" approvals beyond the session, so this test uses its own command. What
    // "always" allows differs: V1 keeps the command's pattern (`printf *`); /api saves the request's
    // `save`, the exact command (1.18), as a rule listed at GET /api/permission/saved. The second
    // command is one that matches what is kept, and the card names it before the click.
    const api2 = stack.contract === "api";
    const kept = api2 ? "printf ask-always-1" : "printf *";
    stack.model.enqueue(bash("printf ask-always-1"), bash(api2 ? "printf ask-always-1" : "printf ask-always-2"), {
      text: "Both ran.",
    });
    const { sp, ui } = await started(page, api, "perm always", "run twice");
    await expect(ui.permission()).toContainText("printf ask-always-1");
    await expect(ui.permission()).toContainText(`“Always allow” also allows ${kept} from now on.`);
    await page.getByTestId("permission-allow-always").click();
    await expect(sp.assistantText().last()).toHaveText("Both ran.");
    await expect(sp.toolCards("bash")).toHaveCount(2);
    for (const card of await sp.toolCards("bash").all()) await expect(card).toHaveAttribute("data-status", "completed");
    await expect(ui.permission()).toHaveCount(0);
    if (api2) {
      const oc = await stack.opencode();
      const saved = (await (await fetch(`${oc.url}/api/permission/saved`, { headers: oc.headers })).json()) as {
        data: { action: string; resource: string }[];
      };
      expect(saved.data).toContainEqual(expect.objectContaining({ action: "bash", resource: kept }));
      // And the backend's details list it as a saved rule.
      await page.goto("/settings");
      const row = page.locator(`[data-testid="backend-row"][data-backend-id="${stack.backendId}"]`);
      await expect(row.getByTestId("backend-saved-rule").filter({ hasText: `bash: ${kept}` })).toHaveCount(1);
    }
  });

  test("reject: the tool is denied and the turn stops", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue(bash("echo ask-reject"), { text: "SHOULD NOT APPEAR" });
    const { sp, ui } = await started(page, api, "perm reject", "try it");
    await page.getByTestId("permission-reject").click();
    await expect(sp.toolCards("bash").first()).toHaveAttribute("data-status", "denied");
    await sp.waitStatus("idle");
    await expect(ui.permission()).toHaveCount(0);
    await expect(sp.timeline).not.toContainText("SHOULD NOT APPEAR");
  });

  test("reject with feedback: the model receives it and the turn goes on", async ({ page, api, stack }) => {
    stack.model.enqueue(bash("echo ask-feedback"), { text: "Understood, I will use ls." });
    const s = await api.createSession("perm feedback");
    const sp = await SessionPage.open(page, stack.backendId, s.id);
    await sp.prompt("try it");
    await page.getByTestId("permission-feedback").click();
    await page.getByTestId("permission-feedback-input").fill("please use ls instead");
    await page.getByTestId("permission-feedback-send").click();
    await expect(sp.assistantText().last()).toHaveText("Understood, I will use ls.");
    await expect(sp.toolCards("bash").first()).toHaveAttribute("data-status", "denied");
    expect(toolResults(stack.model)).toContain("please use ls instead");
  });

  test("a question answered with an option", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue(
      question([
        {
          question: "Which color do you prefer?",
          header: "Color",
          options: [
            { label: "red", description: "warm" },
            { label: "blue", description: "cool" },
          ],
        },
      ]),
      { text: "Blue it is." },
    );
    const { sp, ui } = await started(page, api, "question option", "ask me");
    await expect(ui.question()).toContainText("Which color do you prefer?");
    // Nothing is chosen by default and Submit waits for the user.
    await expect(page.getByTestId("question-submit")).toBeDisabled();
    await expect(ui.question().locator("input:checked")).toHaveCount(0);
    // The form has focus: 1–9 pick options (the last pick wins on a single choice), Enter submits.
    await expect(ui.question()).toBeFocused();
    await page.keyboard.press("1");
    await expect(ui.option("red").locator("input")).toBeChecked();
    await page.keyboard.press("2");
    await expect(ui.option("blue").locator("input")).toBeChecked();
    await expect(ui.option("red").locator("input")).not.toBeChecked();
    await page.keyboard.press("Enter");
    await expect(sp.assistantText().last()).toHaveText("Blue it is.");
    expect(toolResults(stack.model)).toContain('"Which color do you prefer?"="blue"');
  });

  test("notifications: the bell asks once, a hidden tab is notified, a visible one is not, and mute silences it", async ({
    page,
    api,
    stack,
  }) => {
    // A recording Notification and a controllable document.hidden (headless Chromium is never hidden).
    await page.addInitScript(() => {
      const w = window as unknown as { __notes: { title: string; body?: string }[]; __hidden: boolean };
      w.__notes = [];
      w.__hidden = false;
      class RecordingNotification {
        // Kept across reloads, as the browser keeps a site's permission.
        static get permission() {
          return sessionStorage.getItem("__perm") ?? "default";
        }
        static requestPermission() {
          sessionStorage.setItem("__perm", "granted");
          return Promise.resolve("granted");
        }
        onclick: (() => void) | null = null;
        constructor(title: string, opts?: { body?: string }) {
          w.__notes.push({ title, ...(opts?.body ? { body: opts.body } : {}) });
        }
        close() {}
      }
      Object.defineProperty(window, "Notification", { value: RecordingNotification, configurable: true });
      Object.defineProperty(document, "hidden", { get: () => w.__hidden, configurable: true });
    });
    const notes = () =>
      page.evaluate(() => (window as unknown as { __notes: { title: string; body?: string }[] }).__notes);
    const hide = (hidden: boolean) =>
      page.evaluate((h) => ((window as unknown as { __hidden: boolean }).__hidden = h), hidden);
    const s = await api.createSession("notifications");
    const sp = await SessionPage.open(page, stack.backendId, s.id);
    const ui = new Interrupts(page);
    const bell = page.getByTestId("notify-toggle");
    // Before anything is waiting, the bell asks for the permission.
    await expect(bell).toHaveAttribute("data-state", "default");
    await bell.click();
    await expect(bell).toHaveAttribute("data-state", "on");

    // Visible tab: the card shows, no notification.
    stack.model.enqueue(bash("echo ask-note-1"), { text: "First ran." });
    await sp.prompt("run the first");
    await expect(ui.permission()).toBeVisible();
    expect(await notes()).toEqual([]);
    await page.keyboard.press("1");
    await expect(sp.assistantText().last()).toHaveText("First ran.");
    await sp.waitStatus("idle");

    // Hidden tab: a notification that names what waits.
    await hide(true);
    stack.model.enqueue(bash("echo ask-note-2"), { text: "Second ran." });
    await api.prompt(s.id, "run the second");
    await expect
      .poll(notes)
      .toEqual([{ title: "Permission needed", body: expect.stringContaining("echo ask-note-2") }]);
    await hide(false);
    await ui.permission().getByTestId("permission-allow-once").click();
    await expect(sp.assistantText().last()).toHaveText("Second ran.");
    await sp.waitStatus("idle");

    // Muted: hidden again, nothing more fires; the mute survives a reload.
    await bell.click();
    await expect(bell).toHaveAttribute("data-state", "muted");
    await page.reload();
    await expect(bell).toHaveAttribute("data-state", "muted");
    await hide(true);
    stack.model.enqueue(bash("echo ask-note-3"), { text: "Third ran." });
    await api.prompt(s.id, "run the third");
    await expect(ui.inboxItems()).toHaveCount(1);
    expect(await notes()).toEqual([]);
    await hide(false);
    await ui.permission().getByTestId("permission-allow-once").click();
    await expect(sp.assistantText().last()).toHaveText("Third ran.");
  });

  test("a question answered with free text, by keyboard", async ({ page, api, stack }) => {
    stack.model.enqueue(question([{ question: "Name the file", options: [{ label: "a.txt" }, { label: "b.txt" }] }]), {
      text: "Noted.",
    });
    const { sp, ui } = await started(page, api, "question text", "ask me");
    await ui.question().getByTestId("question-custom-input").fill("custom-name.txt");
    await ui.question().getByTestId("question-custom-input").press("Enter");
    await expect(sp.assistantText().last()).toHaveText("Noted.");
    expect(toolResults(stack.model)).toContain("custom-name.txt");
  });

  test("two questions at once", async ({ page, api, stack }) => {
    stack.model.enqueue(
      question([
        { question: "Pick a size", header: "Size", options: [{ label: "small" }, { label: "large" }] },
        {
          question: "Pick toppings",
          header: "Toppings",
          options: [{ label: "cheese" }, { label: "olives" }, { label: "basil" }],
          multiple: true,
        },
      ]),
      { text: "Order placed." },
    );
    const { sp, ui } = await started(page, api, "two questions", "order");
    await expect(ui.question().getByTestId("question")).toHaveCount(2);
    await ui.option("large").click();
    await expect(page.getByTestId("question-submit")).toBeDisabled();
    await ui.option("cheese").click();
    await ui.option("basil").click();
    await page.getByTestId("question-submit").click();
    await expect(sp.assistantText().last()).toHaveText("Order placed.");
    const results = toolResults(stack.model);
    expect(results).toContain("large");
    expect(results).toMatch(/cheese.*basil|basil.*cheese/);
  });

  test("a dismissed question stops the turn", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue(question([{ question: "Continue?", options: [{ label: "yes" }, { label: "no" }] }]), {
      text: "SHOULD NOT APPEAR",
    });
    const { sp, ui } = await started(page, api, "question dismiss", "ask");
    await page.getByTestId("question-dismiss").click();
    await expect(ui.question()).toHaveCount(0);
    await sp.waitStatus("idle");
    await expect(sp.toolCards("question").first()).toHaveAttribute("data-status", "denied");
    await expect(sp.timeline).not.toContainText("SHOULD NOT APPEAR");
  });

  test("a permission asked inside a task subagent is answered from the parent", async ({ page, api, stack }) => {
    stack.model.enqueue(taskCall("Sub job", "SUBAGENT please run the check"), {
      match: "SUBAGENT please run the check",
      ...bash("echo ask-subagent"),
    });
    const { s, sp, ui } = await started(page, api, "subagent perm", "delegate it");
    await expect(ui.permission()).toContainText("echo ask-subagent", { timeout: 30_000 });
    await expect(ui.permission()).toContainText("asked by a subagent");
    await expect(sp.toolCards("task").first()).toHaveAttribute("data-status", "awaiting-approval");
    await expect(ui.inboxItems().first().getByTestId("inbox-link")).toHaveAttribute("href", new RegExp(s.id));
    await page.getByTestId("permission-allow-once").click();
    await expect(ui.permission()).toHaveCount(0);
    await expect(sp.toolCards("task").first()).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await sp.waitStatus("idle");
    expect(toolResults(stack.model)).toContain("ask-subagent");
  });

  test("a subagent's permission is answered from the inbox, away from its session", async ({ page, api, stack }) => {
    stack.model.enqueue(taskCall("Inbox job", "SUBAGENT inbox check"), {
      match: "SUBAGENT inbox check",
      ...bash("echo ask-inbox-sub"),
    });
    const s = await api.createSession("inbox answer");
    const ui = new Interrupts(page);
    await page.goto("/");
    await api.prompt(s.id, "delegate it");
    const item = ui.inboxItems().filter({ hasText: "echo ask-inbox-sub" });
    await expect(item).toHaveCount(1, { timeout: 30_000 });
    // Allow once or reject, right there (never "always" without the card).
    await expect(item.getByTestId("inbox-reject")).toBeVisible();
    await item.getByTestId("inbox-allow").click();
    await expect(item).toHaveCount(0);
    await api.waitIdle(s.id, 45_000);
    expect(toolResults(stack.model)).toContain("ask-inbox-sub");
    const snap = await api.snapshot(s.id);
    expect(snap.interrupts).toEqual([]);
  });

  test("a pending permission survives a page reload and shows in another tab, which sees it resolved", async ({
    page,
    api,
    stack,
    context,
  }) => {
    stack.model.enqueue(bash("echo ask-reload"), { text: "Done after reload." });
    const { s, ui } = await started(page, api, "perm reload", "run");
    await expect(ui.permission()).toBeVisible();
    await page.reload();
    await expect(ui.permission()).toContainText("echo ask-reload");
    const other = await context
      .browser()!
      .newContext({ baseURL: stack.url, storageState: await context.storageState() });
    const page2 = await other.newPage();
    const sp2 = await SessionPage.open(page2, stack.backendId, s.id);
    const ui2 = new Interrupts(page2);
    await expect(ui2.permission()).toBeVisible();
    const id = (await ui.permission().getAttribute("data-interrupt-id"))!;
    await ui.permission().getByTestId("permission-allow-once").click();
    await expect(ui2.permission()).toHaveCount(0);
    await expect(sp2.assistantText().last()).toHaveText("Done after reload.");
    // Answering it again is a clear conflict, not a silent success.
    const again = await page2.request.post(`${api.base(s.id)}/interrupts/${id}`, { data: { decision: "allow_once" } });
    expect(again.status()).toBe(409);
    await other.close();
  });

  // `api` resets the scripted model (a turn left queued by an earlier test would answer first).
  test("the console restarted while a permission is pending still shows it", { tag: "@api" }, async ({
    page,
    api: _api,
    stack,
    request,
  }) => {
    // The console restarts; the OpenCode server it talks to (and its pending request) lives on. In
    // the /api run that server is behind the /api-only proxy, and the console detects /api there.
    const ext = await startExternalSetup(stack, { permission: { bash: { "*": "allow", "echo ask*": "ask" } } });
    try {
      const backend = (await (await request.get(`${ext.console.url}/api/backends/${ext.backendId}`)).json()) as {
        protocol?: string;
      };
      expect(backend.protocol).toBe(stack.contract === "api" ? "/api (OpenCode 2), detected" : "V1 routes, detected");
      stack.model.enqueue(bash("echo ask-restart"), { text: "Survived the restart." });
      const created = await request.post(`${ext.console.url}/api/backends/${ext.backendId}/sessions`, {
        data: { title: "perm restart" },
      });
      const s = (await created.json()) as { id: string };
      const sp = new SessionPage(page);
      const ui = new Interrupts(page);
      await page.goto(`${ext.console.url}/sessions/${ext.backendId}/${s.id}`);
      await expect(sp.connection).toHaveAttribute("data-state", "connected");
      await sp.prompt("run");
      await expect(ui.permission()).toBeVisible();
      const id = await ui.permission().getAttribute("data-interrupt-id");
      await ext.restartConsole();
      await page.reload();
      await expect(ui.permission()).toHaveAttribute("data-interrupt-id", id!);
      await expect(ui.inboxItems()).toHaveCount(1);
      await expect(sp.status).toHaveAttribute("data-status", "waiting");
      await page.getByTestId("permission-allow-once").click();
      await expect(sp.assistantText().last()).toHaveText("Survived the restart.");
    } finally {
      await ext.stop();
    }
  });

  test("malformed and mismatched answers get 400 and leave the interrupt pending", async ({
    page,
    api,
    stack,
    request,
  }) => {
    stack.model.enqueue(question([{ question: "One only", options: [{ label: "x" }, { label: "y" }] }]), {
      text: "ok",
    });
    const { s, sp, ui } = await started(page, api, "bad answers", "ask");
    await expect(ui.question()).toBeVisible();
    const id = (await ui.question().getAttribute("data-interrupt-id"))!;
    const url = `${api.base(s.id)}/interrupts/${id}`;
    for (const body of [
      {},
      { decision: "allow_once" },
      { answers: [] },
      { answers: [["x"], ["y"]] },
      { answers: [["x", "y"]] },
      { answers: [["x"]], extra: 1 },
    ]) {
      const r = await request.post(url, { data: body });
      expect(r.status(), JSON.stringify(body)).toBe(400);
    }
    expect((await request.post(`${api.base(s.id)}/interrupts/que_unknown`, { data: { dismiss: true } })).status()).toBe(
      404,
    );
    await expect(ui.question()).toBeVisible();
    const ok = await request.post(url, { data: { answers: [["y"]] } });
    expect(ok.status()).toBe(200);
    expect((await request.post(url, { data: { answers: [["y"]] } })).status()).toBe(409);
    await expect(sp.assistantText().last()).toHaveText("ok");
  });
});
