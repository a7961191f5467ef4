import path from "node:path";
import { test, expect } from "./fixtures/stack";
import { SessionPage } from "./pages/session-page";

/** Regenerates the screenshots in docs/screenshots: `SCREENSHOTS=1 npx playwright test e2e/screenshots.spec.ts`. */
test.skip(!process.env.SCREENSHOTS, "screenshots are generated on demand");

const out = (name: string) => path.join(import.meta.dirname, "..", "docs", "screenshots", name);

test("docs screenshots", async ({ page, api, stack }) => {
  test.setTimeout(180_000);
  for (const title of ["Refactor the session store", "Fix flaky login test", "Add dark mode to settings", "Investigate memory growth"]) await api.createSession(title);
  const s = await api.createSession("Summarize the build setup");
  stack.model.enqueue(
    {
      reasoning: "The user wants to know how the project builds. I should look at package.json first, then summarize the scripts.",
      text: "Let me check the scripts defined in the project.",
      toolCalls: [{ name: "bash", arguments: { command: "git log --oneline | head -3 && ls", description: "Look at the repository" } }],
    },
    {
      text: "The workspace is a fresh git repository with a single commit.\n\n## What I found\n\n- **README.md** is the only tracked file\n- there is no build configuration yet\n- the default branch has one commit\n\nTo add a build, start with:\n\n```bash\nnpm init -y\nnpm install --save-dev typescript\nnpx tsc --init\n```\n\nWant me to set that up?",
    },
  );
  const sp = new SessionPage(page);
  await page.addInitScript(() => localStorage.setItem("sb-theme", "dark"));
  await sp.goto(stack.backendId, s.id);
  await sp.prompt("How does this project build? Check the repository.");
  await expect(sp.assistantText().last()).toContainText("Want me to set that up?");
  await sp.waitStatus("idle");
  await page.locator('[data-testid="block"][data-kind="reasoning"] button').first().click();
  await page.waitForTimeout(800);
  await page.screenshot({ path: out("session-dark.png") });
  await page.evaluate(() => {
    localStorage.setItem("sb-theme", "light");
    document.documentElement.dataset.theme = "light";
  });
  await page.waitForTimeout(500);
  await page.screenshot({ path: out("session-light.png") });
  await page.evaluate(() => {
    localStorage.setItem("sb-theme", "dark");
    document.documentElement.dataset.theme = "dark";
  });

  // Interrupts: a permission card and the inbox; a question form.
  stack.model.enqueue({ text: "I need to clean the build output first.", toolCalls: [{ name: "bash", arguments: { command: "echo ask-rm -rf dist && rm -rf dist", description: "Remove old build output" } }] }, { text: "Cleaned." });
  const p = await api.createSession("Clean and rebuild");
  await sp.goto(stack.backendId, p.id);
  await sp.prompt("Clean the build output and rebuild.");
  await expect(page.getByTestId("permission-card")).toBeVisible();
  await page.waitForTimeout(600);
  await page.screenshot({ path: out("permission.png") });
  await page.getByTestId("permission-allow-once").click();

  stack.model.enqueue(
    {
      toolCalls: [
        {
          name: "question",
          arguments: {
            questions: [
              { question: "Which package manager should the project use?", header: "Tooling", options: [{ label: "npm", description: "ships with Node" }, { label: "pnpm", description: "fast, strict" }, { label: "bun", description: "all-in-one" }] },
              { question: "Which checks should run in CI?", header: "CI", multiple: true, options: [{ label: "typecheck", description: "tsc --noEmit" }, { label: "unit", description: "vitest" }, { label: "e2e", description: "playwright" }] },
            ],
          },
        },
      ],
    },
    { text: "Great, setting it up." },
  );
  const q = await api.createSession("Set up CI");
  await sp.goto(stack.backendId, q.id);
  await sp.prompt("Set up CI for this project.");
  await expect(page.getByTestId("question-form")).toBeVisible();
  await page.locator('[data-testid="question-option"][data-label="pnpm"]').click();
  await page.locator('[data-testid="question-option"][data-label="typecheck"]').click();
  await page.waitForTimeout(600);
  await page.screenshot({ path: out("question.png") });
  await page.getByTestId("question-dismiss").click();

  await page.goto("/");
  await page.waitForTimeout(800);
  await page.screenshot({ path: out("sessions.png") });
});
