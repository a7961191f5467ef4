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
import { expect, test } from "./fixtures/opencode";
import { ComparePage } from "./pages/compare-page";

const TURN = { timeout: 60_000 };

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
      await page.evaluate((t) => {
        localStorage.setItem("sb-theme", t);
        document.documentElement.dataset.theme = t;
      }, theme);
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
