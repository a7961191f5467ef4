import path from "node:path";
import { test, expect } from "./fixtures/opencode";
import { ReviewPage } from "./pages/review-page";
import { SessionPage } from "./pages/session-page";
import { choice, questionCall } from "../testkit/scripted-turns";
import { setTheme } from "./pages/theme";

/** Regenerates the screenshots in docs/screenshots: `SCREENSHOTS=1 npx playwright test e2e/screenshots.spec.ts`. */
test.skip(!process.env.SCREENSHOTS, "screenshots are generated on demand");

const out = (name: string) => path.join(import.meta.dirname, "..", "docs", "screenshots", name);

test("docs screenshots", async ({ page, api, stack, browser }) => {
  test.setTimeout(180_000);
  for (const title of [
    "Refactor the session store",
    "Fix flaky login test",
    "Add dark mode to settings",
    "Investigate memory growth",
  ])
    await api.createSession(title);
  const s = await api.createSession("Summarize the build setup");
  stack.model.enqueue(
    {
      reasoning:
        "The user wants to know how the project builds. I should look at package.json first, then summarize the scripts.",
      text: "Let me check the scripts defined in the project.",
      toolCalls: [
        {
          name: "bash",
          arguments: { command: "git log --oneline | head -3 && ls", description: "Look at the repository" },
        },
      ],
    },
    {
      text: "The workspace is a fresh git repository with a single commit.\n\n## What I found\n\n- **README.md** is the only tracked file\n- there is no build configuration yet\n- the default branch has one commit\n\nTo add a build, start with:\n\n```bash\nnpm init -y\nnpm install --save-dev typescript\nnpx tsc --init\n```\n\nWant me to set that up?",
    },
  );
  const sp = new SessionPage(page);
  await page.addInitScript(() => localStorage.setItem("sb-theme", "dark"));
  await sp.goto(stack.backendId, s.id);
  await sp.askContaining("How does this project build? Check the repository.", "Want me to set that up?", {
    timeout: 60_000,
  });
  await page.locator('[data-testid="block"][data-kind="reasoning"] button').first().click();
  await page.waitForTimeout(800);
  await page.screenshot({ path: out("session-dark.png") });
  await setTheme(page, "light");
  await page.waitForTimeout(500);
  await page.screenshot({ path: out("session-light.png") });
  await setTheme(page, "dark");

  // Interrupts: a permission card and the inbox; a question form.
  stack.model.enqueue(
    {
      text: "I need to clean the build output first.",
      toolCalls: [
        {
          name: "bash",
          arguments: { command: "echo ask-rm -rf dist && rm -rf dist", description: "Remove old build output" },
        },
      ],
    },
    { text: "Cleaned." },
  );
  const p = await api.createSession("Clean and rebuild");
  await sp.goto(stack.backendId, p.id);
  await sp.prompt("Clean the build output and rebuild.");
  await expect(page.getByTestId("permission-card")).toBeVisible();
  await page.waitForTimeout(600);
  await page.screenshot({ path: out("permission.png") });
  await page.getByTestId("permission-allow-once").click();

  stack.model.enqueue(
    questionCall([
      choice("Which package manager should the project use?", "Tooling", {
        npm: "ships with Node",
        pnpm: "fast, strict",
        bun: "all-in-one",
      }),
      choice(
        "Which checks should run in CI?",
        "CI",
        { typecheck: "tsc --noEmit", unit: "vitest", e2e: "playwright" },
        true,
      ),
    ]),
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

  // Sharing: the dialog with its redaction preview, the shared page, the settings list.
  stack.model.reset(); // the dismissed question left its follow-up turn queued
  stack.model.enqueue(
    {
      text: "I'll check how the app is configured for staging.",
      toolCalls: [
        {
          name: "bash",
          arguments: {
            description: "Show the staging environment",
            command: [
              "cat <<'EOF'",
              "NODE_ENV=staging",
              "PORT=8080",
              "OPENAI_API_KEY=sk-proj-FAKEdocsKEY0123456789abcdefABCDEF0123",
              "DATABASE_URL=postgres://app:s3cret@db.internal:5432/app",
              "-----BEGIN OPENSSH PRIVATE KEY-----",
              "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
              "-----END OPENSSH PRIVATE KEY-----",
              "LOG_LEVEL=info",
              "EOF",
            ].join("\n"),
          },
        },
      ],
    },
    {
      text: "Staging runs with `NODE_ENV=staging` on port 8080 and logs at `info`.\n\n- The database is the internal Postgres instance.\n- An OpenAI key and a deploy key are configured.\n\nNothing looks misconfigured.",
    },
  );
  const sh = await api.createSession("Review the staging config");
  await sp.goto(stack.backendId, sh.id);
  await sp.askContaining("Check the staging configuration.", "Nothing looks misconfigured.", { timeout: 60_000 });
  await page.getByTestId("share-button").click();
  const dialog = page.getByTestId("share-dialog");
  await expect(dialog.getByTestId("redaction-example").first()).toBeVisible();
  await dialog.getByTestId("share-expiry-7d").click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: out("share-dialog.png") });
  await dialog.getByTestId("share-create").click();
  const url = await dialog.getByTestId("share-url").inputValue();
  await page.waitForTimeout(300);
  await page.screenshot({ path: out("share-created.png") });
  await dialog.getByTestId("share-done").click();

  const viewer = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  const vp = await viewer.newPage();
  await vp.addInitScript(() => localStorage.setItem("sb-theme", "dark"));
  await vp.goto(url);
  await expect(vp.getByTestId("share-connection")).toHaveAttribute("data-state", "connected");
  await page.waitForTimeout(800);
  await vp.screenshot({ path: out("share-page.png") });
  await setTheme(vp, "light");
  await vp.waitForTimeout(400);
  await vp.screenshot({ path: out("share-page-light.png") });
  await viewer.close();

  await page.goto("/settings/shares");
  await expect(page.getByTestId("share-row").first()).toBeVisible();
  await page.waitForTimeout(600);
  await page.screenshot({ path: out("shares-settings.png") });
});

/** What both versions of the screenshots' store share: the class's head and its emit(). */
const STORE_CLASS_HEAD = `export class SessionStore {
  private seq = 0;
  private listeners = new Set<() => void>();

  constructor(private opts: StoreOptions) {}

  subscribe(fn: () => void) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
`;
const STORE_EMIT = `  private emit() {
    for (const l of this.listeners) l();
  }
}
`;

const STORE_V1 = `import type { Snapshot } from "./model";

export interface StoreOptions {
  backendId: string;
  sessionId: string;
}

/** Loads a session and keeps it fresh. */
${STORE_CLASS_HEAD}
  async load(): Promise<Snapshot> {
    const res = await fetch(\`/api/sessions/\${this.opts.sessionId}\`);
    const snap = (await res.json()) as Snapshot;
    this.seq = snap.seq;
    return snap;
  }

${STORE_EMIT}`;

const STORE_V2 = `import type { Snapshot } from "./model";
import { backoff } from "./retry";

export interface StoreOptions {
  backendId: string;
  sessionId: string;
  /** Give up after this many failed loads. */
  maxAttempts?: number;
}

/** Loads a session, retries with backoff, and keeps it fresh. */
${STORE_CLASS_HEAD}
  async load(attempt = 0): Promise<Snapshot> {
    const res = await fetch(\`/api/backends/\${this.opts.backendId}/sessions/\${this.opts.sessionId}/snapshot\`);
    if (!res.ok && attempt < (this.opts.maxAttempts ?? 5)) {
      await backoff(attempt);
      return this.load(attempt + 1);
    }
    const snap = (await res.json()) as Snapshot;
    this.seq = snap.seq;
    this.emit();
    return snap;
  }

${STORE_EMIT}`;

const RETRY = `/** Waits 250 ms, 500 ms, 1 s … up to 10 s. */
export function backoff(attempt: number): Promise<void> {
  const ms = Math.min(10_000, 250 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
`;

test("docs screenshots: review panel and branch tree", async ({ page, api, stack }) => {
  test.setTimeout(180_000);
  const ws = stack.workspace;
  const s = await api.createSession("Make the session store resilient");
  stack.model.enqueue(
    {
      text: "I'll start with the store and a legacy helper it replaces.",
      toolCalls: [
        { name: "write", arguments: { filePath: `${ws}/src/session-store.ts`, content: STORE_V1 } },
        {
          name: "write",
          arguments: {
            filePath: `${ws}/src/legacy-fetch.ts`,
            content: "export const legacyFetch = (url: string) => fetch(url);\n",
          },
        },
      ],
    },
    { text: "The store loads a snapshot and notifies its listeners." },
    {
      text: "Adding retries with backoff, and removing the legacy helper.",
      toolCalls: [
        {
          name: "todowrite",
          arguments: {
            todos: [
              { content: "Load the snapshot from the backend route", status: "completed", priority: "high" },
              { content: "Retry failed loads with backoff", status: "completed", priority: "high" },
              { content: "Notify listeners after a load", status: "in_progress", priority: "medium" },
              { content: "Cover the retry path with a unit test", status: "pending", priority: "medium" },
            ],
          },
        },
        { name: "write", arguments: { filePath: `${ws}/src/session-store.ts`, content: STORE_V2 } },
        { name: "write", arguments: { filePath: `${ws}/src/retry.ts`, content: RETRY } },
        { name: "bash", arguments: { command: "rm src/legacy-fetch.ts", description: "Remove the legacy helper" } },
      ],
    },
    {
      text: "Loads now retry with exponential backoff (up to five attempts), listeners are notified after each load, and the legacy helper is gone.",
    },
  );
  const rp = new ReviewPage(page);
  await page.addInitScript(() => localStorage.setItem("sb-theme", "dark"));
  await rp.goto(stack.backendId, s.id);
  await rp.askContaining("Create a session store that loads the snapshot.", "notifies its listeners", {
    timeout: 60_000,
  });
  await rp.askContaining(
    "Make loading resilient: retry with backoff, and drop the legacy fetch helper.",
    "legacy helper is gone",
    { timeout: 60_000 },
  );

  await page.getByTestId("turn-changes").last().click();
  await page.getByTestId("diff-layout-unified").click();
  await expect(page.locator('[data-testid="review-diff"]').first()).toBeVisible();
  await page.waitForTimeout(1200);
  await page.screenshot({ path: out("review-unified-dark.png") });
  await page.getByTestId("diff-layout-split").click();
  await page.waitForTimeout(1000);
  await page.screenshot({ path: out("review-split-dark.png") });
  await setTheme(page, "light");
  await page.waitForTimeout(600);
  await page.screenshot({ path: out("review-split-light.png") });
  await page.getByTestId("diff-layout-unified").click();
  await page.waitForTimeout(600);
  await page.screenshot({ path: out("review-unified-light.png") });
  await page.getByTestId("panel-tab-plan").click();
  await page.waitForTimeout(400);
  await page.screenshot({ path: out("plan-light.png") });
  await setTheme(page, "dark");

  // Branches: two forks and a fork of a fork, then the tree from the middle one.
  await page.getByTestId("panel-close").click();
  // The timeline renders the rows on screen (and the newest): scroll from the top, as a reader would,
  // until the second prompt is on screen.
  await rp.timeline.evaluate((el) => el.scrollTo({ top: 0 }));
  for (let i = 0; i < 40 && (await rp.messages("user").count()) < 2; i++) await page.mouse.wheel(0, 400);
  await rp.messageAction(rp.messages("user").nth(1), "fork-message");
  const f1 = await rp.waitForOtherSession(s.id);
  await rp.goto(stack.backendId, s.id);
  await rp.messageAction(rp.messages("assistant").last(), "fork-message");
  const f2 = await rp.waitForOtherSession(s.id);
  await rp.messageAction(rp.messages("assistant").first(), "fork-message");
  await rp.waitForOtherSession(f2);
  await rp.goto(stack.backendId, f2);
  void f1;
  await page.getByTestId("tree-button").click();
  await expect(rp.treeNodes()).toHaveCount(4);
  await page.waitForTimeout(500);
  await page.screenshot({ path: out("branch-tree-dark.png") });
  await setTheme(page, "light");
  await page.waitForTimeout(400);
  await page.screenshot({ path: out("branch-tree-light.png") });
});
