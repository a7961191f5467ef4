import { test, expect } from "./fixtures/opencode";
import { SessionPage } from "./pages/session-page";

test.describe("live timeline on a real OpenCode", () => {
  test("a text reply streams into the page", { tag: "@api" }, async ({ page, api, stack }) => {
    const reply = `Streaming works. ${Array.from({ length: 12 }, (_, i) => `word${i}`).join(" ")} — the end.`;
    stack.model.enqueue({ text: reply, chunks: 14, delayMs: 120 });
    const { sp } = await api.open(page, "stream test", SessionPage);
    await sp.prompt("say something long");
    await expect(sp.messages("user").last()).toContainText("say something long");
    await sp.expectStreamed(reply, 15_000);
    await sp.waitStatus("idle");
    await expect(page.getByTestId("usage")).toBeVisible();
  });

  test("reasoning shows as its own collapsed block", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue({ reasoning: "Let me weigh the options carefully.", text: "Decided: option B." });
    const { sp } = await api.open(page, "reasoning test", SessionPage);
    await sp.prompt("decide");
    await expect(sp.assistantText().last()).toHaveText("Decided: option B.");
    const reasoning = sp.timeline.locator('[data-testid="block"][data-kind="reasoning"]');
    await expect(reasoning).toHaveCount(1);
    await expect(reasoning).toContainText("Thinking");
  });

  test("a bash tool call shows its command, output and exit code", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command: "echo hi-from-e2e", description: "Say hi" } }] },
      { text: "The command printed hi-from-e2e." },
    );
    const { sp } = await api.open(page, "bash test", SessionPage);
    await sp.prompt("run the command");
    const card = sp.toolCards("bash").first();
    await expect(card).toHaveAttribute("data-status", "completed");
    await expect(card).toContainText("echo hi-from-e2e");
    await expect(card.getByTestId("tool-output")).toContainText("hi-from-e2e");
    await expect(card.getByTestId("exit-code")).toContainText("0");
    await expect(sp.assistantText().last()).toHaveText("The command printed hi-from-e2e.");
  });

  test("Stop aborts a slow reply", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue({
      text: Array.from({ length: 40 }, (_, i) => `chunk${i} `).join(""),
      chunks: 40,
      delayMs: 250,
    });
    const { sp } = await api.open(page, "abort test", SessionPage);
    await sp.prompt("go slowly");
    await expect(sp.assistantText().last()).toContainText("chunk2", { timeout: 20_000 });
    await sp.stop.click();
    await sp.waitStatus("idle", 15_000);
    const shown = (await sp.assistantText().last().textContent()) ?? "";
    expect(shown).not.toContain("chunk39");
    await expect(sp.timeline.getByTestId("message-stopped")).toBeVisible();
    // Nothing more arrives after the stop.
    await page.waitForTimeout(1000);
    expect(await sp.assistantText().last().textContent()).toBe(shown);
  });

  test("a reload mid-stream shows the same timeline and keeps streaming", { tag: "@api" }, async ({
    page,
    api,
    stack,
  }) => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`);
    const reply = words.join(" ");
    stack.model.enqueue({ text: reply, chunks: 30, delayMs: 150 });
    const { s, sp } = await api.open(page, "reload test", SessionPage);
    await sp.prompt("stream then reload");
    await expect(sp.assistantText().last()).toContainText("w5", { timeout: 20_000 });
    await page.reload();
    await expect(sp.view).toHaveAttribute("data-loaded", "true");
    await expect(sp.messages("user")).toHaveCount(1);
    await expect(sp.assistantText().last()).toHaveText(reply, { timeout: 30_000 });
    await sp.waitStatus("idle");
    // The page equals the backend's own history: no duplicated or missing text.
    const snap = await api.snapshot(s.id);
    const texts = snap.messages
      .flatMap((m) => m.blocks)
      .filter((b) => b.kind === "text")
      .map((b) => (b.kind === "text" ? b.text : ""));
    expect(texts).toContain(reply);
  });

  test("an upstream model error is shown in the timeline", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue({ error: { status: 400, message: "scripted bad request", type: "invalid_request_error" } });
    const { sp } = await api.open(page, "error test", SessionPage);
    await sp.prompt("fail please");
    await expect(sp.timeline.getByTestId("message-error").last()).toContainText("scripted bad request");
    await sp.waitStatus("idle");
  });

  test("the sidebar lists sessions with live status and creates new ones", async ({ page, api, stack }) => {
    const s = await api.createSession("sidebar listed session");
    await page.goto("/");
    const row = page.locator(`[data-testid="session-row"][data-session-id="${s.id}"]`);
    await expect(row).toContainText("sidebar listed session");
    stack.model.enqueue({ text: `slow ${"x ".repeat(20)}`, chunks: 20, delayMs: 150 });
    await api.prompt(s.id, "work a bit");
    await expect(row).toHaveAttribute("data-status", "busy");
    await expect(row).toHaveAttribute("data-status", "idle", { timeout: 30_000 });
    await page.getByTestId("session-search").fill("sidebar listed");
    await expect(row).toBeVisible();
    await page.getByTestId("new-session").first().click();
    await expect(page).toHaveURL(/\/sessions\/local\/ses_/);
    await expect(page.getByTestId("empty-session")).toBeVisible();
  });

  test("the sidebar pages through long session lists", async ({ page, api, request }) => {
    // 105 sessions with a shared word: the first page holds 100, "Show more" brings the rest.
    const ids: string[] = [];
    for (let i = 0; i < 105; i++) ids.push((await api.createSession(`paged-list ${String(i).padStart(3, "0")}`)).id);
    try {
      await page.goto("/");
      const searched = page.waitForResponse(
        (r) => r.url().includes("/sessions?") && r.url().includes("search=paged-list"),
      );
      await page.getByTestId("session-search").fill("paged-list");
      await searched;
      const rows = page.locator('[data-testid="session-row"]', { hasText: "paged-list" });
      await expect(rows).toHaveCount(100);
      await page.getByTestId("sessions-more").click();
      await expect(rows).toHaveCount(105);
      await expect(page.getByTestId("sessions-more")).toHaveCount(0);
      // Newest first: the oldest ones came with the second page.
      await expect(rows.last()).toContainText("paged-list 000");
    } finally {
      await Promise.all(ids.map((id) => request.delete(api.base(id))));
    }
  });

  test("prompts typed while busy are queued and sent in order", { tag: "@api" }, async ({ page, api, stack }) => {
    stack.model.enqueue({ text: `first reply ${"y ".repeat(60)}`, chunks: 60, delayMs: 150 }, { text: "second reply" });
    const { sp } = await api.open(page, "queue test", SessionPage);
    await sp.prompt("first");
    await sp.waitStatus("busy");
    await sp.prompt("second");
    await expect(page.getByTestId("queued-prompt")).toHaveCount(1);
    await expect(sp.assistantText().last()).toHaveText("second reply", { timeout: 30_000 });
    await expect(page.getByTestId("queued-prompt")).toHaveCount(0);
    await expect(sp.messages("user")).toHaveCount(2);
  });

  test("the page arrives with its newest messages in it, before any script runs, and the live timeline takes over", async ({
    page,
    api,
    stack,
    browser,
  }) => {
    const { s, sp } = await api.openAfterTurn(page, "server render", "render me", "An answer the server renders.");
    // The page's HTML alone (no script runs): the newest messages, at the bottom of the timeline.
    const ctx = await browser.newContext({ javaScriptEnabled: false });
    await ctx.addCookies([{ name: "sb_session", value: stack.sessionCookie, url: stack.url }]);
    const raw = await ctx.newPage();
    await raw.goto(`${stack.url}/sessions/${stack.backendId}/${s.id}`);
    const preview = raw.getByTestId("timeline-preview");
    await expect(preview.getByText("An answer the server renders.")).toBeVisible();
    await expect(preview.getByText("render me")).toBeVisible();
    // Inert until the scripts take over: nothing in it can be clicked or focused half-alive.
    await expect(preview).toHaveAttribute("inert", "");
    await expect(raw.getByTestId("session-view")).toHaveAttribute("data-loaded", "false");
    await ctx.close();
    // With scripts, the virtualized timeline replaces it and the page follows the session live.
    await page.reload();
    await expect(sp.view).toHaveAttribute("data-loaded", "true");
    await expect(page.getByTestId("timeline-preview")).toHaveCount(0);
    await expect(sp.assistantText()).toHaveText(["An answer the server renders."]);
    await expect(sp.connection).toHaveAttribute("data-state", "connected");
    stack.model.enqueue({ text: "And a live one." });
    await sp.prompt("more");
    await expect(sp.assistantText().last()).toHaveText("And a live one.");
  });

  test("a reply arriving while the reader is scrolled far up is rendered, though the rows between are not", async ({
    page,
    api,
    stack,
  }) => {
    test.setTimeout(240_000);
    // Six turns, each reply taller than the screen, so the top and the bottom are rows apart.
    const s = await api.createSession("scrolled up");
    for (let t = 0; t < 6; t++) {
      const paragraphs = Array.from(
        { length: 30 },
        (_, i) => `Turn ${t} paragraph ${i}: filler to make this reply tall.`,
      );
      stack.model.enqueue({ text: paragraphs.join("\n\n") });
      await api.prompt(s.id, `turn ${t}`);
      await api.waitIdle(s.id);
    }
    const sp = await SessionPage.open(page, stack.backendId, s.id);
    await expect(sp.timeline.getByText("Turn 5 paragraph 29:")).toBeVisible();
    await sp.scrollToStart();
    await expect(sp.timeline.getByText("Turn 0 paragraph 0:")).toBeInViewport();
    // Overscan is one row: a middle turn is not in the DOM at all.
    await expect(sp.timeline.getByText("Turn 3 paragraph 0:")).toHaveCount(0);
    // The reader prompts (the view follows their own prompt to the bottom), then scrolls back to the
    // top while the reply streams: the reply is rendered there all along, for find in page and screen
    // readers, without moving the reader.
    stack.model.enqueue({ text: "Arrived while you were reading the top.", chunks: 30, delayMs: 200 });
    await api.prompt(s.id, "one more");
    await expect(sp.messages("user").last()).toContainText("one more");
    await sp.scrollToStart();
    await expect(sp.assistantText().last()).toHaveText("Arrived while you were reading the top.", {
      timeout: 60_000,
    });
    await expect(sp.timeline.getByText("Arrived while you were reading the top.")).not.toBeInViewport();
    await expect(sp.timeline.getByText("Turn 0 paragraph 0:")).toBeInViewport();
    await expect(sp.timeline.getByText("Turn 3 paragraph 0:")).toHaveCount(0);
  });

  test("code is highlighted in the highlight worker, which ends when idle and starts again for new code", async ({
    page,
    api,
    stack,
  }) => {
    const small = "const answer: number = 42;";
    const big = Array.from(
      { length: 160 },
      (_, i) => `export function step${i}(input: string): number {\n  return input.length + ${i};\n}`,
    ).join("\n");
    stack.model.enqueue({ text: `Small:\n\n\`\`\`ts\n${small}\n\`\`\`\n\nLarge:\n\n\`\`\`ts\n${big}\n\`\`\`\n` });
    const workers: string[] = [];
    let closed = 0;
    page.on("worker", (w) => {
      workers.push(w.url());
      w.on("close", () => closed++);
    });
    const { sp } = await api.open(page, "highlight test", SessionPage);
    await sp.prompt("show me code");
    await sp.waitStatus("idle");
    const coloured = (text: string) => sp.timeline.locator("pre span[style]", { hasText: text }).first();
    // Both blocks are tokenized by the one worker (the page holds no highlighter): tokens arrive as
    // data and render as coloured spans.
    await expect(coloured("step1")).toBeVisible({ timeout: 20_000 });
    await sp.timeline.getByText("Small:").scrollIntoViewIfNeeded();
    await expect(coloured("answer")).toBeVisible();
    expect(workers.length).toBe(1);
    // With nothing to do for a while (components/code/code-block.tsx, WORKER_IDLE_MS) it is ended,
    // freeing its grammars; the next code starts a new one.
    await expect.poll(() => closed, { timeout: 30_000 }).toBe(1);
    stack.model.enqueue({ text: 'More:\n\n```ts\nconst later: string = "again";\n```\n' });
    await sp.prompt("more code");
    await sp.waitStatus("idle");
    await expect(coloured("later")).toBeVisible({ timeout: 20_000 });
    expect(workers.length).toBe(2);
  });

  test("a killed and restarted OpenCode is reconnected and the session is whole", { tag: "@api" }, async ({
    page,
    api,
    stack,
  }) => {
    const { sp } = await api.openAfterTurn(page, "crash test", "hello", "before the crash");
    const pid = await stack.opencodePid();
    await stack.killOpencode();
    await expect(sp.connection).not.toHaveAttribute("data-state", "connected", { timeout: 15_000 });
    await expect(sp.connection).toHaveAttribute("data-state", "connected", { timeout: 45_000 });
    expect(await stack.opencodePid()).not.toBe(pid);
    await expect(sp.assistantText()).toHaveText(["before the crash"]);
    stack.model.enqueue({ text: "after the restart" });
    await sp.prompt("still there?");
    await expect(sp.assistantText().last()).toHaveText("after the restart", { timeout: 30_000 });
    await expect(sp.messages("user")).toHaveCount(2);
  });
});
