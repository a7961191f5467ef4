import fs from "node:fs";
import path from "node:path";
import type { SessionTree } from "../lib/api";
import type { Session } from "../lib/model";
import { test, expect } from "./fixtures/opencode";
import { ReviewPage, twoTurnsTranscript } from "./pages/review-page";
import { writeCall } from "../testkit/scripted-turns";

/** A turn with tool calls can take a while on a busy machine (the first prompt also warms OpenCode up). */
const TURN = { timeout: 45_000 };

/** Session tree and review (issue 4) on a real OpenCode driven by the scripted model. */
test.describe("session tree and review", () => {
  test("fork from a user message and from an assistant message; the tree shows both", async ({
    page,
    api,
    stack,
    request,
  }) => {
    const { rp, session: src } = await ReviewPage.afterTwoTurns(
      page,
      { api, model: stack.model },
      stack.backendId,
      "fork source",
      TURN,
    );

    // From the second user message: the messages before it, and its prompt ready to send again.
    await rp.messageAction(rp.messages("user").nth(1), "fork-message");
    const fromUser = await rp.waitForOtherSession(src.id);
    await expect.poll(() => rp.transcript()).toEqual(twoTurnsTranscript(1));
    await expect(rp.input).toHaveValue("second question");
    await expect(page.getByTestId("forked-from")).toBeVisible();

    // From the last assistant message: the whole conversation through it.
    await rp.goto(stack.backendId, src.id);
    await rp.messageAction(rp.messages("assistant").last(), "fork-message");
    const fromAssistant = await rp.waitForOtherSession(src.id);
    await expect.poll(() => rp.transcript()).toEqual(twoTurnsTranscript());
    await expect(rp.input).toHaveValue("");

    // From the first assistant message: through it only (OpenCode gets the id of the message after it).
    await rp.goto(stack.backendId, src.id);
    await rp.messageAction(rp.messages("assistant").first(), "fork-message");
    const fromFirstAnswer = await rp.waitForOtherSession(src.id);
    await expect.poll(() => rp.transcript()).toEqual(twoTurnsTranscript(1));

    // The tree, opened from a fork, shows the source and every fork; a node navigates.
    await page.getByTestId("tree-button").click();
    await expect(rp.treeNodes()).toHaveCount(4);
    await expect(rp.treeNodes().first()).toHaveAttribute("data-session-id", src.id);
    await expect(rp.treeNodes().first()).toHaveAttribute("data-relation", "root");
    for (const id of [fromUser, fromAssistant, fromFirstAnswer]) {
      await expect(page.locator(`[data-testid="tree-node"][data-session-id="${id}"]`)).toHaveAttribute(
        "data-relation",
        "fork",
      );
    }
    await expect(page.locator(`[data-testid="tree-node"][data-session-id="${fromFirstAnswer}"]`)).toHaveAttribute(
      "data-current",
      "true",
    );
    await page.locator(`[data-testid="tree-node"][data-session-id="${src.id}"]`).click();
    await page.waitForURL((u) => u.pathname.endsWith(src.id));
    await expect(page.getByTestId("tree-count")).toHaveText("4");

    // Lineage on the API: forkedFrom on the fork, the tree from the source.
    const fork = (await (await request.get(api.base(fromUser))).json()) as Session;
    expect(fork.forkedFrom?.sessionId).toBe(src.id);
    expect(fork.forkedFrom?.messageId).toMatch(/^msg_/);
    const tree = (await (await request.get(`${api.base(src.id)}/tree`)).json()) as SessionTree;
    expect(tree.root.children.map((c) => c.session.id).sort()).toEqual(
      [fromUser, fromAssistant, fromFirstAnswer].sort(),
    );

    // Unknown message → 404, and nothing is created.
    const unknown = await request.post(`${api.base(src.id)}/fork`, { data: { messageId: "msg_doesnotexist000" } });
    expect(unknown.status()).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const after = (await (await request.get(`${api.base(src.id)}/tree`)).json()) as SessionTree;
    expect(after.root.children).toHaveLength(3);
    const badRevert = await request.post(`${api.base(src.id)}/revert`, { data: { messageId: "msg_doesnotexist000" } });
    expect(badRevert.status()).toBe(404);
  });

  test("revert after a write restores the file on disk, unrevert brings it back, the next prompt drops the turn", async ({
    page,
    api,
    stack,
  }) => {
    const file = path.join(stack.workspace, "revert-notes.txt");
    stack.model.enqueue(writeCall(file, "alpha\nbeta\ngamma\n"), { text: "Wrote the notes." });
    const { sp: rp } = await api.open(page, "revert test", ReviewPage);
    await rp.ask("write the notes", "Wrote the notes.", TURN);
    expect(fs.readFileSync(file, "utf8")).toBe("alpha\nbeta\ngamma\n");

    await rp.messageAction(rp.messages("user").first(), "revert-message");
    await expect(rp.revertBanner).toBeVisible();
    await expect(rp.revertBanner).toContainText("Files restored to before this message");
    await expect.poll(() => fs.existsSync(file)).toBe(false);
    // The reverted turn stays listed, dimmed, until the next prompt.
    await expect(page.getByTestId("revert-marker")).toBeVisible();
    const items = page.getByTestId("timeline-item");
    expect(await items.count()).toBeGreaterThan(1);
    for (const item of await items.all()) await expect(item).toHaveAttribute("data-reverted", "true");

    await page.getByTestId("unrevert").click();
    await expect(rp.revertBanner).toBeHidden();
    await expect.poll(() => fs.existsSync(file) && fs.readFileSync(file, "utf8")).toBe("alpha\nbeta\ngamma\n");
    await expect(page.locator('[data-testid="timeline-item"][data-reverted]')).toHaveCount(0);

    // Revert again, then prompt: the reverted messages go for good.
    await rp.messageAction(rp.messages("user").first(), "revert-message");
    await expect(rp.revertBanner).toBeVisible();
    await expect.poll(() => fs.existsSync(file)).toBe(false);
    stack.model.enqueue({ text: "Fresh start." });
    await rp.prompt("start over");
    await expect(rp.assistantText().last()).toHaveText("Fresh start.", TURN);
    await expect.poll(() => rp.transcript()).toEqual(["user: start over", "assistant: Fresh start."]);
    await expect(rp.revertBanner).toBeHidden();
    expect(fs.existsSync(file)).toBe(false);
  });

  test("the review panel shows the file, status and counts of a turn, unified and split", async ({
    page,
    api,
    stack,
  }) => {
    const rel = "src/review-demo.ts";
    const file = path.join(stack.workspace, rel);
    const v1 = "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n";
    const v2 = "export const a = 1;\nexport const b = 20;\nexport const c = 3;\nexport const d = 4;\n";
    stack.model.enqueue(
      { toolCalls: [{ name: "write", arguments: { filePath: file, content: v1 } }] },
      { text: "Created the module." },
      { toolCalls: [{ name: "write", arguments: { filePath: file, content: v2 } }] },
      { text: "Changed b and added d." },
    );
    const { sp: rp } = await api.open(page, "review test", ReviewPage);
    await rp.ask("create the module", "Created the module.", TURN);
    await rp.ask("change it", "Changed b and added d.", TURN);

    // The per-turn chips.
    const chips = page.getByTestId("turn-changes");
    await expect(chips).toHaveCount(2);
    await expect(chips.first()).toContainText("1 file changed");
    await expect(chips.first()).toContainText("+3");
    await expect(chips.last()).toContainText("+2");
    await expect(chips.last()).toContainText("−1");

    // The chip of the first turn opens the panel at that turn: an added file, +3 −0.
    await chips.first().click();
    await expect(rp.panel).toBeVisible();
    await expect(page.getByTestId("changes-view")).toHaveAttribute(
      "data-scope",
      (await chips.first().getAttribute("data-turn-id")) ?? "",
    );
    const added = rp.reviewFile(rel);
    await expect(added).toHaveAttribute("data-status", "added");
    await expect(added).toHaveAttribute("data-additions", "3");
    await expect(added).toHaveAttribute("data-deletions", "0");
    await expect(page.getByTestId("review-file")).toHaveCount(1);
    const diff = rp.panel.locator(`[data-testid="review-diff"][data-path="${rel}"]`);
    await expect(diff).toContainText("export const c = 3;");

    // The second turn: modified, +2 −1, in unified then split layout.
    await chips.last().click();
    const modified = rp.reviewFile(rel);
    await expect(modified).toHaveAttribute("data-status", "modified");
    await expect(modified).toHaveAttribute("data-additions", "2");
    await expect(modified).toHaveAttribute("data-deletions", "1");
    await page.getByTestId("diff-layout-unified").click();
    await expect(diff).toContainText("export const b = 20;");
    await expect(diff.getByTestId("split-row")).toHaveCount(0);
    await page.getByTestId("diff-layout-split").click();
    const changedRow = diff.getByTestId("split-row").filter({ hasText: "export const b = 20;" });
    await expect(changedRow).toHaveCount(1);
    await expect(changedRow.locator('[data-side="old"]')).toContainText("export const b = 2;");
    await expect(changedRow.locator('[data-side="new"]')).toContainText("export const b = 20;");

    // All changes: one file, added over the session; the file picker filters.
    await page.getByTestId("changes-scope").selectOption("");
    await expect(rp.reviewFile(rel)).toHaveAttribute("data-status", "added");
    await page.getByTestId("file-filter").fill("nothing-matches");
    await expect(page.getByTestId("review-file")).toHaveCount(0);
    await page.getByTestId("file-filter").fill("demo");
    await expect(page.getByTestId("review-file")).toHaveCount(1);
    await expect(page.getByTestId("open-changes")).toContainText("1");

    // A large file starts collapsed and renders when opened.
    const big = `${Array.from({ length: 450 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    stack.model.enqueue(
      {
        toolCalls: [
          { name: "write", arguments: { filePath: path.join(stack.workspace, "big-output.txt"), content: big } },
        ],
      },
      { text: "Wrote a big file." },
    );
    await rp.prompt("write a big file");
    await expect(rp.assistantText().last()).toHaveText("Wrote a big file.", TURN);
    // Three turns changed files; the big one's output pushes the older chips off screen, where
    // the virtualized timeline does not render them: count them by scrolling through it.
    await expect.poll(() => rp.turnChangeIds()).toHaveLength(3);
    await chips.last().click();
    const bigDiff = rp.panel.locator('[data-testid="review-diff"][data-path="big-output.txt"]');
    await expect(bigDiff).toHaveAttribute("data-open", "false");
    await expect(bigDiff).not.toContainText("line 449");
    await bigDiff.getByTestId("expand-file").click();
    await expect(bigDiff).toHaveAttribute("data-open", "true");
    await expect(bigDiff).toContainText("line 449");
  });

  test("the plan panel follows todowrite", { tag: "@api" }, async ({ page, api, stack }) => {
    const todos = (a: string, b: string) => [
      { content: "Sketch the API", status: a, priority: "high" },
      { content: "Write the tests", status: b, priority: "medium" },
    ];
    stack.model.enqueue(
      { toolCalls: [{ name: "todowrite", arguments: { todos: todos("in_progress", "pending") } }] },
      { text: "Planned." },
    );
    const { sp: rp } = await api.open(page, "plan test", ReviewPage);
    await rp.prompt("make a plan");
    await expect(rp.assistantText().last()).toHaveText("Planned.", TURN);
    await expect(page.getByTestId("open-plan")).toContainText("0/2");
    await page.getByTestId("open-plan").click();
    const panel = page.getByTestId("todo-panel");
    await expect(panel).toHaveAttribute("data-count", "2");
    const items = panel.getByTestId("todo-item");
    await expect(items.nth(0)).toHaveAttribute("data-status", "in_progress");
    await expect(items.nth(1)).toHaveAttribute("data-status", "pending");
    await expect(panel).toContainText("Now: Sketch the API");

    stack.model.enqueue(
      { toolCalls: [{ name: "todowrite", arguments: { todos: todos("completed", "in_progress") } }] },
      { text: "Progress." },
    );
    await rp.prompt("go on");
    await expect(items.nth(0)).toHaveAttribute("data-status", "completed");
    await expect(items.nth(1)).toHaveAttribute("data-status", "in_progress");
    await expect(panel).toHaveAttribute("data-done", "1");
    await expect(page.getByTestId("todo-progress")).toHaveText("1 of 2 done");
    await expect(page.getByTestId("open-plan")).toContainText("1/2");
    // The turn ends with its own reply: a model call still to come would take the next test's script.
    await expect(rp.assistantText().last()).toHaveText("Progress.", TURN);
  });

  test("compact adds a marker to the timeline", async ({ page, api, stack }) => {
    stack.model.enqueue({ text: "Here is a long answer worth compacting." });
    const { sp: rp } = await api.open(page, "compact test", ReviewPage);
    await rp.ask("say something", "Here is a long answer worth compacting.", TURN);
    await rp.menu("action-compact");
    await expect(page.getByTestId("compaction-marker")).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("compaction-marker")).toContainText("Conversation compacted");
    // The summary reply is marked as such, and the summary request carried no tools. The marker can
    // show (OpenCode creates the summary message) a moment before that request reaches the model.
    await expect(rp.timeline.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText("Summary");
    await expect
      .poll(
        () =>
          stack.model.requests.some(
            (r) => r.tools.length === 0 && r.messages.some((m) => /summar/i.test(JSON.stringify(m.content ?? ""))),
          ),
        TURN,
      )
      .toBe(true);
  });

  // Only in the /api run (the default project leaves out @api-only): OpenCode 1.18's /api has the
  // compact route but answers 503 "Session compact is not available yet", and an OpenCode 2 server
  // has no V1 summarize to fall back on. V1 compacts: "compact adds a marker to the timeline".
  test("compact on a server that cannot: the console says why and offers it no more", { tag: "@api-only" }, async ({
    page,
    api,
    stack,
    request,
  }) => {
    stack.model.enqueue({ text: "Here is a long answer worth compacting." });
    const { sp: rp } = await api.open(page, "compact refused", ReviewPage);
    await rp.ask("say something", "Here is a long answer worth compacting.", TURN);
    const asked = stack.model.requests.length;
    await rp.menu("action-compact");
    await expect(page.getByRole("alert").filter({ hasText: "compact" })).toHaveText(
      "Local cannot compact a conversation: this OpenCode server's /api does not compact yet (OpenCode answered 503: Session compact is not available yet)",
    );
    // Nothing was compacted, and the action now says why it is not offered.
    await expect(page.getByTestId("compaction-marker")).toHaveCount(0);
    await page.getByTestId("session-menu").click();
    await expect(page.getByTestId("action-compact")).toHaveAttribute("aria-disabled", "true");
    await expect(page.getByTestId("action-compact")).toHaveAttribute("title", "Local cannot compact a conversation");
    const backend = (await (await request.get(`${stack.url}/api/backends/${stack.backendId}`)).json()) as {
      capabilities: { compact: boolean; revert: boolean };
    };
    expect(backend.capabilities).toMatchObject({ compact: false, revert: true });
    expect(stack.model.requests.length).toBe(asked);
  });

  test("choosing another model sends the prompt with it; usage shows per session", async ({ page, api, stack }) => {
    const { sp: rp } = await api.open(page, "model test", ReviewPage);
    const picker = page.getByTestId("model-picker");
    await expect(picker.locator("option")).toHaveCount(2);
    // The configured default shows first (OpenCode's own per-provider default would be another).
    await expect(picker).toHaveValue("fake/fake-model");
    await picker.selectOption("fake/fake-model-2");
    await expect(page.getByTestId("agent-picker").locator("option")).toHaveText(["Build", "Plan"]);
    stack.model.enqueue({ text: "Answered by model two." });
    await rp.prompt("which model?");
    await expect(rp.assistantText().last()).toHaveText("Answered by model two.", TURN);
    const turn = stack.model.requests.filter((r) => r.source === "queue");
    expect(turn.map((r) => r.model)).toEqual(["fake-model-2"]);
    await expect(rp.messages("assistant").last().getByTestId("message-footer")).toContainText("fake-model-2");
    await rp.waitStatus("idle");
    // The picker keeps the choice; the usage meter has the context of that model.
    await expect(picker).toHaveValue("fake/fake-model-2");
    await page.getByTestId("usage").click();
    await expect(page.getByTestId("usage-details")).toContainText("Context");
    await expect(page.getByTestId("usage-details")).toContainText("128,000");
    await expect(page.getByTestId("context-meter")).toBeVisible();
  });

  test("export downloads a Markdown transcript; rename and delete", async ({ page, api, stack, request }) => {
    stack.model.enqueue({ text: "The exported answer." });
    const { s, sp: rp } = await api.open(page, "export test", ReviewPage);
    await rp.ask("please export me", "The exported answer.", TURN);

    await page.getByTestId("session-menu").click();
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("action-export-md").click()]);
    expect(download.suggestedFilename()).toMatch(/\.md$/);
    const md = fs.readFileSync((await download.path())!, "utf8");
    expect(md).toContain("## User");
    expect(md).toContain("please export me");
    expect(md).toContain("## Assistant");
    expect(md).toContain("The exported answer.");
    const json = (await (await request.get(`${api.base(s.id)}/export?format=json`)).json()) as { messages: unknown[] };
    expect(json.messages.length).toBeGreaterThanOrEqual(2);

    // Rename inline.
    await rp.menu("action-rename");
    await page.getByTestId("title-input").fill("Renamed in place");
    await page.getByTestId("title-input").press("Enter");
    await expect(page.getByTestId("session-title")).toHaveText("Renamed in place");
    expect(((await (await request.get(api.base(s.id))).json()) as Session).title).toBe("Renamed in place");

    // Delete with confirmation: cancel keeps it, confirm deletes and goes home.
    await rp.menu("action-delete");
    await expect(page.getByTestId("confirm-dialog")).toContainText("Renamed in place");
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByTestId("confirm-dialog")).toBeHidden();
    await rp.menu("action-delete");
    await page.getByTestId("confirm-action").click();
    await page.waitForURL((u) => u.pathname === "/");
    expect((await request.get(api.base(s.id))).status()).toBe(404);
  });
});
