/**
 * Accessibility (issue 18): axe over every page and state of the console — home, a session with
 * every block kind, a pending permission, a pending question, review (unified and split), the plan,
 * the branch tree, the command palette, the shortcuts help, the drawer, settings, shares, login and a
 * share page — in both themes, on a phone (390×844) and a desktop (1360×860). Serious and critical
 * violations fail the test; all of them are listed at once.
 *
 * OpenCode raises no `input` interrupt: the input form (components/interrupts/input-form.tsx) is
 * audited in e2e/copilot.spec.ts, where the Copilot CLI raises one, in both themes.
 */
import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";
import type { CreatedShare } from "../lib/api";
import { test, expect } from "./fixtures/opencode";
import { authHeaders } from "../testkit/opencode-stack";
import { Interrupts } from "./pages/interrupts";
import { ReviewPage } from "./pages/review-page";
import { Shell } from "./pages/shell";
import { choice, questionCall } from "../testkit/scripted-turns";

const TURN = { timeout: 60_000 };
const WIDTHS = [
  { name: "phone", viewport: { width: 390, height: 844 } },
  { name: "desktop", viewport: { width: 1360, height: 860 } },
] as const;
const THEMES = ["dark", "light"] as const;

/**
 * The rules whose result depends on colours. A theme changes colours only (app/globals.css gives each
 * theme the same variables; the markup is the same but for the theme button's icon and title), so the
 * second theme is audited with these alone; the first gets every rule.
 */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/** Runs axe on the page as it is and returns its serious and critical violations, described. */
async function audit(page: Page, where: string, theme: (typeof THEMES)[number]): Promise<string[]> {
  // Reduced motion turns transitions off (app/globals.css), so colours are final once the frame that
  // shows the state is drawn.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // Only violations are read: axe then skips building selectors and summaries for every passing node
  // (its documented performance option), which is most of its time on a long timeline.
  const axe = new AxeBuilder({ page }).options({ resultTypes: ["violations"] });
  const r = await (theme === THEMES[0]
    ? axe.withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    : axe.withRules(COLOUR_RULES)
  ).analyze();
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${where}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes
          .slice(0, 4)
          .map(
            (n) =>
              `${n.target.join(" ")}${n.failureSummary ? ` [${n.failureSummary.split("\n").slice(1, 2).join("").trim()}]` : ""}`,
          )
          .join(" | ")}`,
    );
}

async function expandAll(page: Page) {
  const closed = page.getByTestId("timeline").locator('button[aria-expanded="false"]');
  for (let i = 0; i < 20 && (await closed.count()) > 0; i++) await closed.first().click();
}

async function anonymousPage(
  browser: Browser,
  viewport: { width: number; height: number },
  theme: string,
  baseURL: string,
): Promise<Page> {
  const ctx = await browser.newContext({ viewport, baseURL, reducedMotion: "reduce" });
  await ctx.addInitScript((t) => localStorage.setItem("sb-theme", t), theme);
  return ctx.newPage();
}

test("axe finds no serious or critical violation on any page, state, theme or width", async ({
  page,
  api,
  stack,
  browser,
}) => {
  test.setTimeout(600_000);
  // Reduced motion: pulsing badges hold still, so their colours are measured as they settle.
  await page.emulateMedia({ reducedMotion: "reduce" });
  const rp = new ReviewPage(page);
  const ui = new Interrupts(page);
  const shell = new Shell(page);
  const file = path.join(stack.workspace, "a11y-module.ts");
  fs.writeFileSync(path.join(stack.workspace, "a11y-notes.md"), "# Notes\n\nTODO: check the contrast\n");

  // A session with every block kind: reasoning, text, write, bash (ok and failing), todo, read,
  // search (grep, glob), edit, markdown with code, a table and a link.
  const all = await api.createSession("Every block kind");
  stack.model.enqueue(
    {
      reasoning: "Start with a module, run it, and plan the rest.",
      text: "Creating the module and a plan.",
      toolCalls: [
        { name: "write", arguments: { filePath: file, content: "export const a = 1;\nexport const b = 2;\n" } },
        { name: "bash", arguments: { command: "ls && echo done", description: "List the workspace" } },
        { name: "bash", arguments: { command: "false", description: "A failing command" } },
        {
          name: "todowrite",
          arguments: {
            todos: [
              { content: "Write the module", status: "completed", priority: "high" },
              { content: "Check the contrast", status: "in_progress", priority: "medium" },
              { content: "Ship it", status: "pending", priority: "low" },
            ],
          },
        },
      ],
    },
    {
      toolCalls: [
        { name: "read", arguments: { filePath: path.join(stack.workspace, "a11y-notes.md") } },
        { name: "grep", arguments: { pattern: "TODO", path: stack.workspace } },
        { name: "glob", arguments: { pattern: "**/*.md", path: stack.workspace } },
      ],
    },
    {
      toolCalls: [
        {
          name: "edit",
          arguments: {
            filePath: file,
            oldString: "export const b = 2;",
            newString: "export const b = 3;\nexport const c = a + b;",
          },
        },
      ],
    },
    {
      text: "Done.\n\n## Summary\n\n| file | change |\n|---|---|\n| `a11y-module.ts` | new |\n\n- **b** is now 3\n- see [the docs](https://example.com/docs)\n\n```ts\nexport const c = a + b;\n```",
    },
  );
  await rp.goto(stack.backendId, all.id);
  await rp.askContaining("Build the module, then summarize.", "Summary", TURN);

  // A pending permission and a pending question, each in its own session (never answered, so no
  // follow-up turn is scripted).
  const perm = await api.createSession("Needs a permission");
  stack.model.enqueue({
    toolCalls: [
      { name: "bash", arguments: { command: "echo ask-a11y && rm -rf dist", description: "Clean the build output" } },
    ],
  });
  await api.prompt(perm.id, "Clean the build output.");
  const ques = await api.createSession("Asks a question");
  await expect.poll(async () => (await api.snapshot(perm.id)).interrupts.length, TURN).toBe(1);
  stack.model.enqueue(
    questionCall([
      choice("Which package manager?", "Tooling", { npm: "ships with Node", pnpm: "fast, strict" }),
      choice("Which checks run in CI?", "CI", { typecheck: "tsc", e2e: "playwright" }, true),
    ]),
  );
  await api.prompt(ques.id, "Set up the tooling.");
  await expect.poll(async () => (await api.snapshot(ques.id)).interrupts.length, TURN).toBe(1);

  // A share link of the finished session.
  const r = await fetch(`${stack.url}/api/shares`, {
    method: "POST",
    headers: { "content-type": "application/json", ...authHeaders(stack) },
    body: JSON.stringify({ backendId: stack.backendId, sessionId: all.id, live: true, expiresIn: "1h" }),
  });
  expect(r.status).toBe(201);
  const share = (await r.json()) as CreatedShare;

  const found: string[] = [];
  for (const w of WIDTHS) {
    await page.setViewportSize(w.viewport);
    const phone = w.name === "phone";
    for (const theme of THEMES) {
      /** Audits a page as it is now, under this width, theme and state name. */
      const check = async (p: Page, what: string) =>
        found.push(...(await audit(p, `${w.name}/${theme}/${what}`, theme)));
      await page.goto("/");
      await page.evaluate((t) => localStorage.setItem("sb-theme", t), theme);

      await page.goto("/");
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      await expect(page.getByTestId("backend-card").first()).toBeVisible();
      await check(page, "home");
      if (phone) {
        await shell.openSidebar();
        await check(page, "drawer with the inbox");
        await page.keyboard.press("Escape");
      }
      await shell.openPalette();
      await page.getByTestId("palette-input").fill("every");
      await expect(page.getByTestId("palette-session").first()).toBeVisible();
      await check(page, "command palette");
      await page.keyboard.press("Escape");
      await page.keyboard.press("?");
      await expect(shell.help).toBeVisible();
      await check(page, "shortcuts help");
      await page.keyboard.press("Escape");

      await rp.goto(stack.backendId, all.id);
      await expandAll(page);
      await check(page, "session with every block kind");
      await shell.sessionAction("changes");
      await expect(rp.panel).toBeVisible();
      await page.getByTestId("diff-layout-unified").click();
      await check(page, "review, unified");
      await page.getByTestId("diff-layout-split").click();
      await check(page, "review, split");
      await page.getByTestId("panel-tab-plan").click();
      await expect(page.getByTestId("todo-panel")).toBeVisible();
      await check(page, "plan");
      await page.getByTestId("panel-close").click();
      await shell.sessionAction("tree");
      await expect(page.getByTestId("branch-tree")).toBeVisible();
      await check(page, "branch tree");
      await page.keyboard.press("Escape");
      await shell.sessionAction("share");
      await expect(page.getByTestId("share-dialog")).toBeVisible();
      await check(page, "share dialog");
      await page.keyboard.press("Escape");
      await page.getByTestId("session-menu").click();
      await check(page, "session menu");
      await page.keyboard.press("Escape");

      await rp.goto(stack.backendId, perm.id);
      await expect(ui.permission()).toBeVisible();
      await check(page, "permission");
      await rp.goto(stack.backendId, ques.id);
      await expect(ui.question()).toBeVisible();
      await check(page, "question");

      await page.goto("/settings");
      await expect(page.getByTestId("backend-list")).toBeVisible();
      await check(page, "settings");
      await page.goto("/settings/shares");
      await expect(page.getByTestId("shares-settings")).toBeVisible();
      await check(page, "shares");

      const anon = await anonymousPage(browser, w.viewport, theme, stack.url);
      try {
        await anon.goto("/login");
        await expect(anon.locator("form")).toBeVisible();
        await check(anon, "login");
        await anon.goto(share.path);
        await expect(anon.getByTestId("share-connection")).toHaveAttribute("data-state", "connected");
        await check(anon, "share page");
      } finally {
        await anon.context().close();
      }
    }
  }
  expect(found, `serious or critical axe violations:\n${found.join("\n")}`).toEqual([]);
});
