/**
 * One task on three different agents (issue 47, docs/compare.md): the real OpenCode, the real
 * Copilot CLI and the zot fake, on one scripted model, each asked for its own model name so a
 * scripted turn reaches the agent it is meant for. Each writes its own greeting to the same file
 * with its bash tool; three worktrees, three diffs and three test results on one screen; Keep
 * merges the chosen one. A permission an agent asks for is answered through the console's API.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import type { InterruptAnswer } from "../lib/api";
import type { Snapshot } from "../lib/model";
import { gitIn, makeRepo } from "../testkit/git-repo";
import { AGENTS, type MultiAgentStack, startMultiAgentStack } from "../testkit/multi-agent-stack";
import { ComparePage } from "./pages/compare-page";

let stack: MultiAgentStack;
test.beforeAll(async () => {
  test.setTimeout(240_000);
  stack = await startMultiAgentStack();
});
test.afterAll(async () => {
  await stack?.stop();
});

const TURN = { timeout: 90_000 };

test("three agents, three worktrees, one screen: their diffs and tests side by side; Keep merges one", async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const context = await browser.newContext({ baseURL: stack.url });
  await context.addCookies([{ name: "sb_session", value: stack.sessionCookie, url: stack.url }]);
  const page = await context.newPage();
  const auth = { authorization: `Bearer ${stack.token}` };
  const { repo } = makeRepo(stack.root, "app", {
    "greeting.txt": "hello\n",
    "check.sh": 'grep -q "^hello from zot" greeting.txt\n',
  });
  const order = [AGENTS.opencode, AGENTS.copilot, AGENTS.zot];
  for (const a of order) {
    const who = a.backendId;
    stack.model.enqueue(
      {
        model: a.model,
        toolCalls: [
          {
            name: "bash",
            arguments: { command: `printf 'hello from ${who}\\n' > greeting.txt`, description: "Write the greeting" },
          },
        ],
      },
      { model: a.model, text: `Done by ${who}.` },
    );
  }

  const created = await fetch(`${stack.url}/api/compare`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      prompt: "Write a greeting into greeting.txt",
      directory: repo,
      testCommand: "sh check.sh",
      targets: [
        { backendId: AGENTS.opencode.backendId, model: { provider: "fake", id: AGENTS.opencode.model } },
        { backendId: AGENTS.copilot.backendId },
        { backendId: AGENTS.zot.backendId },
      ],
    }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const group = (await created.json()) as {
    id: string;
    members: { backendId: string; sessionId: string; worktree: { path: string } }[];
  };
  expect(group.members.map((m) => m.backendId)).toEqual(["opencode", "copilot", "zot"]);
  expect(new Set(group.members.map((m) => m.worktree.path)).size).toBe(3);

  // Answer any permission an agent asks for while the three run.
  const answered = new Set<string>();
  const answerPending = async () => {
    for (const m of group.members) {
      const snap = (await (
        await fetch(`${stack.url}/api/backends/${m.backendId}/sessions/${m.sessionId}/snapshot`, { headers: auth })
      ).json()) as Snapshot;
      for (const i of snap.interrupts ?? []) {
        if (answered.has(i.id) || i.kind !== "permission") continue;
        answered.add(i.id);
        const body: InterruptAnswer = { decision: "allow_once" };
        await fetch(`${stack.url}/api/backends/${m.backendId}/sessions/${m.sessionId}/interrupts/${i.id}`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      }
    }
  };
  const cp = new ComparePage(page);
  await page.goto(`/compare/${group.id}`);
  await expect(cp.columns).toHaveCount(3);
  await expect
    .poll(async () => {
      await answerPending();
      return group.members.map((m) => {
        try {
          return fs.readFileSync(path.join(m.worktree.path, "greeting.txt"), "utf8");
        } catch {
          return "";
        }
      });
    }, TURN)
    .toEqual(["hello from opencode\n", "hello from copilot\n", "hello from zot\n"]);
  expect(fs.readFileSync(path.join(repo, "greeting.txt"), "utf8")).toBe("hello\n");

  for (let i = 0; i < 3; i++)
    await expect(cp.column(i).getByTestId("compare-test")).toHaveAttribute("data-exit", i === 2 ? "0" : "1", TURN);
  await cp.column(0).getByTestId("compare-file").first().click();
  await expect(page.getByTestId("compare-diff")).toHaveCount(3);
  for (const [i, who] of ["opencode", "copilot", "zot"].entries())
    await expect(page.getByTestId("compare-diff").nth(i)).toContainText(`hello from ${who}`);

  if (process.env.SCREENSHOTS) await page.screenshot({ path: "docs/screenshots/compare-three-agents.png" });

  await page.reload();
  await expect(cp.columns).toHaveCount(3);
  await cp.column(2).getByTestId("compare-keep").click();
  await expect(cp.column(2).getByTestId("compare-kept")).toBeVisible();
  expect(fs.readFileSync(path.join(repo, "greeting.txt"), "utf8")).toBe("hello from zot\n");
  expect(gitIn(repo, "log", "-1", "--format=%s")).toMatch(/^Merge branch 'switchboard\/compare-/);
  await context.close();
});
