/**
 * One task on several agents (issue 47, docs/compare.md) on a real OpenCode and the scripted model:
 * two sessions of one task, each on its own model, in two worktrees from one commit; each writes
 * its own content to the same file; the test command runs in each worktree when its turn ends; the
 * file's two diffs stand side by side; Keep merges one branch and archives the other.
 */
import fs from "node:fs";
import path from "node:path";
import { gitIn, makeRepo } from "../testkit/git-repo";
import { FAKE_MODEL_2_ID, FAKE_MODEL_ID, FAKE_PROVIDER_ID } from "../testkit/opencode-env";
import type { ChatContentPart } from "../testkit/scripted-model";
import { expect, test } from "./fixtures/opencode";
import { ComparePage } from "./pages/compare-page";
import { Shell } from "./pages/shell";
import { setTheme } from "./pages/theme";

const TURN = { timeout: 60_000 };

const userText = (parts: ChatContentPart[] | string | null | undefined): string =>
  typeof parts === "string" ? parts : (parts ?? []).map((p) => p.text ?? "").join("\n");

test("one prompt on two models in two worktrees: replies, tests and diffs side by side; Keep merges the chosen one", async ({
  page,
  stack,
  request,
}) => {
  const { repo } = makeRepo(stack.workspace, `cmp-${Date.now().toString(36)}`, {
    "greeting.txt": "hello\n",
    "check.sh": 'grep -q "^hello, alpha" greeting.txt\n',
  });
  // Each model writes its own greeting (a relative path: OpenCode writes it in the session's directory).
  for (const [model, who] of [
    [FAKE_MODEL_ID, "alpha"],
    [FAKE_MODEL_2_ID, "beta"],
  ] as const) {
    stack.model.enqueue(
      { model, toolCalls: [{ name: "write", arguments: { filePath: "greeting.txt", content: `hello, ${who}\n` } }] },
      { model, text: `Greeted ${who}.` },
    );
  }

  const cp = new ComparePage(page);
  await cp.start({
    prompt: "Change the greeting",
    directory: repo,
    testCommand: "sh check.sh",
    models: [`${FAKE_PROVIDER_ID}/${FAKE_MODEL_ID}`, `${FAKE_PROVIDER_ID}/${FAKE_MODEL_2_ID}`],
  });
  await expect(cp.columns).toHaveCount(2);
  await expect(cp.column(0).getByTestId("compare-reply")).toHaveText("Greeted alpha.", TURN);
  await expect(cp.column(1).getByTestId("compare-reply")).toHaveText("Greeted beta.", TURN);
  await expect(cp.column(0).getByTestId("compare-test")).toHaveAttribute("data-exit", "0", TURN);
  await expect(cp.column(1).getByTestId("compare-test")).toHaveAttribute("data-exit", "1", TURN);
  await expect(cp.column(0).getByTestId("compare-test")).toContainText("Tests passed");

  // The main checkout is untouched; each worktree has its own greeting.
  expect(fs.readFileSync(path.join(repo, "greeting.txt"), "utf8")).toBe("hello\n");
  const id = new URL(page.url()).pathname.split("/").pop()!;
  const view = (await (await request.get(`${stack.url}/api/compare/${id}`)).json()) as {
    members: { worktree: { path: string; base: string } }[];
  };
  expect(view.members.map((m) => fs.readFileSync(path.join(m.worktree.path, "greeting.txt"), "utf8"))).toEqual([
    "hello, alpha\n",
    "hello, beta\n",
  ]);
  expect(new Set(view.members.map((m) => m.worktree.base))).toEqual(new Set([gitIn(repo, "rev-parse", "HEAD")]));

  // One file, both diffs on one screen.
  await cp.column(0).getByTestId("compare-file").first().click();
  await expect(page.getByTestId("compare-diff")).toHaveCount(2);
  await expect(page.getByTestId("compare-diff").nth(0)).toContainText("hello, alpha");
  await expect(page.getByTestId("compare-diff").nth(1)).toContainText("hello, beta");

  if (process.env.SCREENSHOTS) {
    for (const theme of ["dark", "light"] as const) {
      await setTheme(page, theme);
      await page.screenshot({ path: `docs/screenshots/compare-${theme}.png` });
    }
  }

  // A reload shows the same group.
  await page.reload();
  await expect(cp.columns).toHaveCount(2);
  await expect(cp.column(1).getByTestId("compare-reply")).toHaveText("Greeted beta.");

  await cp.column(0).getByTestId("compare-keep").click();
  await expect(cp.column(0).getByTestId("compare-kept")).toBeVisible();
  await expect(cp.column(1)).toContainText("Archived");
  expect(fs.readFileSync(path.join(repo, "greeting.txt"), "utf8")).toBe("hello, alpha\n");
  expect(fs.existsSync(view.members[1]!.worktree.path)).toBe(false);

  // Refusals before anything starts: five targets, a folder that is no repository.
  const five = await request.post(`${stack.url}/api/compare`, {
    data: { prompt: "x", targets: Array.from({ length: 5 }, () => ({ backendId: stack.backendId })) },
  });
  expect(five.status()).toBe(400);
  const plain = fs.mkdtempSync(path.join(stack.workspace, "plain-"));
  fs.writeFileSync(path.join(plain, ".git"), `gitdir: ${path.join(plain, "missing")}\n`);
  const noRepo = await request.post(`${stack.url}/api/compare`, {
    data: { prompt: "x", directory: plain, targets: [{ backendId: stack.backendId }, { backendId: stack.backendId }] },
  });
  expect(noRepo.status()).toBe(409);
  expect(((await noRepo.json()) as { error: { message: string } }).error.message).toMatch(/git repository/);
});

test("the columns stream their timelines live; a reload mid-run shows the same group; a mention and an attachment reach each model", async ({
  page,
  stack,
}) => {
  const tag = Date.now().toString(36);
  const marker = `The brief's marker is heliotrope-${tag}.`;
  const { repo } = makeRepo(stack.workspace, `cmp-live-${tag}`, {
    "greeting.txt": "hello\n",
    "notes/brief.md": `# Brief\n\n${marker}\n`,
  });
  // Both replies stream slowly (60 pieces, 250 and 350 ms apart): the board shows them while the turns run.
  const words = Array.from({ length: 60 }, (_, i) => `word${i + 1}`).join(" ");
  const slow = (who: string) => `Streaming for ${who}: ${words} THE END ${who}.`;
  stack.model.enqueue(
    {
      model: FAKE_MODEL_ID,
      toolCalls: [{ name: "write", arguments: { filePath: "greeting.txt", content: "hello, alpha\n" } }],
    },
    { model: FAKE_MODEL_ID, text: slow("alpha"), chunks: 60, delayMs: 250 },
    { model: FAKE_MODEL_2_ID, text: slow("beta"), chunks: 60, delayMs: 350 },
  );
  const seen = stack.model.requests.length;

  // The palette opens the form.
  await page.goto("/");
  await new Shell(page).openPalette();
  await page.getByTestId("palette-input").fill("compare agents");
  await page.getByTestId("palette-command").filter({ hasText: "Compare agents…" }).click();
  await page.waitForURL(/\/compare$/);
  await expect(page.getByTestId("compare-start")).toBeVisible();

  const cp = new ComparePage(page);
  await cp.start(
    {
      prompt: "Follow the brief",
      directory: repo,
      testCommand: "true",
      models: [`${FAKE_PROVIDER_ID}/${FAKE_MODEL_ID}`, `${FAKE_PROVIDER_ID}/${FAKE_MODEL_2_ID}`],
    },
    async () => {
      // The composer's `@` list, over the repository's files; and an attached file.
      await cp.mention(
        "brief",
        "notes/brief.md",
        process.env.SCREENSHOTS ? "test-results/compare-start-mention.png" : undefined,
      );
      await expect(cp.prompt).toHaveValue("Follow the brief @notes/brief.md ");
      await page.getByTestId("attach-input").setInputFiles({
        name: "note.txt",
        mimeType: "text/plain",
        buffer: Buffer.from(`The attached secret is cardamom-${tag}.\n`),
      });
      await expect(page.getByTestId("attachment")).toHaveAttribute("data-name", "note.txt");
      if (process.env.SCREENSHOTS) await page.screenshot({ path: "test-results/compare-start-attached.png" });
    },
  );
  await expect(cp.columns).toHaveCount(2);

  // The tool call is one row with its status; the text shows while the turn still runs.
  const tool = cp.live(0).locator('[data-testid="compare-tool"][data-tool="write"]');
  await expect(tool).toContainText("greeting.txt", TURN);
  await expect(tool).toHaveAttribute("data-status", "completed", TURN);
  const midTurn = (i: number, who: string) =>
    cp.column(i).evaluate((col, w) => {
      const text = col.querySelector('[data-testid="compare-live"]')?.textContent ?? "";
      return (
        col.getAttribute("data-status") === "busy" && text.includes(`Streaming for ${w}`) && !text.includes("THE END")
      );
    }, who);
  await expect
    .poll(() => midTurn(0, "alpha"), { ...TURN, message: "alpha's text streams before its turn ends" })
    .toBe(true);
  await expect
    .poll(() => midTurn(1, "beta"), { ...TURN, message: "beta's text streams before its turn ends" })
    .toBe(true);
  // The live timeline is inert text: the prompt row and the reply are plain text.
  await expect(cp.live(1)).toContainText("Follow the brief @notes/brief.md");
  // The board mid-run, in both themes (docs/compare.md).
  if (process.env.SCREENSHOTS) {
    for (const theme of ["dark", "light"] as const) {
      await setTheme(page, theme);
      await page.screenshot({ path: `docs/screenshots/compare-live-${theme}.png` });
    }
  }

  // A reload mid-run: the same group, its columns, and their timelines picked up again.
  const url = page.url();
  await page.reload();
  expect(page.url()).toBe(url);
  await expect(cp.columns).toHaveCount(2);
  await expect(cp.live(0)).toContainText("Streaming for alpha");
  await expect(cp.live(1)).toContainText("Streaming for beta");
  await expect(cp.live(0).locator('[data-testid="compare-tool"][data-tool="write"]')).toHaveCount(1);

  await expect(cp.column(0).getByTestId("compare-reply")).toHaveText(slow("alpha"), TURN);
  await expect(cp.column(1).getByTestId("compare-reply")).toHaveText(slow("beta"), TURN);
  await expect(cp.column(0)).toHaveAttribute("data-status", "idle", TURN);

  // Each model got the attachment, and the mention as its own worktree's file (OpenCode's V1
  // contract reads a file:// part into the prompt; on /api the mention travels as text).
  for (const model of [FAKE_MODEL_ID, FAKE_MODEL_2_ID]) {
    const first = stack.model.requests.slice(seen).find((r) => r.source === "queue" && r.model.endsWith(model));
    expect(first, `a scripted turn for ${model}`).toBeTruthy();
    const sent = first!.messages
      .filter((m) => m.role === "user")
      .map((m) => userText(m.content))
      .join("\n");
    expect(sent).toContain("@notes/brief.md");
    expect(sent).toContain(`cardamom-${tag}`);
    if (stack.contract === "api") expect(sent).not.toContain(marker);
    else expect(sent).toContain(marker);
  }
});
