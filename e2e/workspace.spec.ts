/**
 * Workspace tools (issue 45, docs/workspace.md) on a real OpenCode driven by the scripted model and a
 * real git workspace with a bare repository as `origin`: a session in its own worktree, the file the
 * model writes lands there and not in the main checkout, and the Git panel stages, commits, pushes
 * and merges it; deleting the session removes the worktree and keeps its branch.
 */
import fs from "node:fs";
import path from "node:path";
import type { Session } from "../lib/model";
import type { GitState } from "../lib/workspace-api";
import { authHeaders } from "../testkit/opencode-stack";
import { expect, test } from "./fixtures/opencode";
import { GitPanel } from "./pages/git-panel";
import { gitIn, makeRepo } from "../testkit/git-repo";
import { ReviewPage } from "./pages/review-page";
import { setTheme } from "./pages/theme";

const TURN = { timeout: 45_000 };
const git = gitIn;

test.describe("workspace tools", () => {
  test("a worktree session: the agent's file is only in the worktree; stage, commit, push and merge from the Git panel", async ({
    page,
    api,
    stack,
    request,
  }) => {
    const { repo, origin } = makeRepo(stack.workspace, `app-${Date.now().toString(36)}`);
    const created = await request.post(api.base(), {
      data: { title: "Add a feature", directory: repo, worktree: true },
    });
    expect(created.status()).toBe(201);
    const session = (await created.json()) as Session;
    const wt = session.worktree!;
    expect(wt.branch).toMatch(/^switchboard\/add-a-feature-[a-z0-9]+$/);
    expect(wt.base).toBe(git(repo, "rev-parse", "HEAD"));
    expect(session.directory).toBe(wt.path);
    expect(wt.path.startsWith(repo + path.sep)).toBe(false);

    stack.model.enqueue(
      {
        toolCalls: [
          { name: "write", arguments: { filePath: path.join(wt.path, "feature.txt"), content: "a feature\n" } },
        ],
      },
      { text: "Wrote feature.txt." },
    );
    const rp = await ReviewPage.open(page, stack.backendId, session.id);
    await rp.ask("Add a feature file", "Wrote feature.txt.", TURN);
    expect(fs.readFileSync(path.join(wt.path, "feature.txt"), "utf8")).toBe("a feature\n");
    expect(fs.existsSync(path.join(repo, "feature.txt"))).toBe(false);

    const panel = new GitPanel(page);
    await panel.open();
    await expect(panel.branch).toHaveText(wt.branch);
    await expect(panel.file("feature.txt")).toHaveAttribute("data-status", "untracked");
    await expect(panel.commitButton).toBeDisabled();

    // A path outside the session's directory is refused, and nothing is staged.
    const outside = await request.post(`${api.base(session.id)}/git/stage`, {
      data: { paths: ["feature.txt", "../../README.md"] },
    });
    expect(outside.status()).toBe(403);
    expect(((await (await request.get(`${api.base(session.id)}/git`)).json()) as GitState).files).toEqual([
      { path: "feature.txt", status: "untracked", staged: false },
    ]);

    await panel.toggle("feature.txt");
    await expect(panel.file("feature.txt")).toHaveAttribute("data-staged", "true");
    await expect(panel.file("feature.txt")).toHaveAttribute("data-status", "added");
    if (process.env.SCREENSHOTS) {
      // docs/workspace.md's pictures: the Git panel with a staged file, in both themes.
      await panel.message.fill("Add the feature file");
      for (const theme of ["dark", "light"] as const) {
        await setTheme(page, theme);
        await page.screenshot({ path: `docs/screenshots/git-panel-${theme}.png` });
      }
    }
    await panel.commit("Add the feature file");
    await expect(panel.outcome).toContainText("Committed");
    const head = git(wt.path, "rev-parse", "HEAD");
    expect(git(wt.path, "log", "-1", "--format=%s")).toBe("Add the feature file");
    await expect(page.getByTestId("git-clean")).toBeVisible();

    await panel.pushButton.click();
    await expect(panel.outcome).toContainText(`to origin/${wt.branch}`);
    expect(git(origin, "rev-parse", `refs/heads/${wt.branch}`)).toBe(head);

    await panel.mergeButton.click();
    await expect(panel.outcome).toContainText("Merged into main");
    expect(fs.readFileSync(path.join(repo, "feature.txt"), "utf8")).toBe("a feature\n");

    // Deleting the session can remove its worktree; the branch stays unless asked.
    await rp.menu("action-delete");
    await page.getByTestId("delete-worktree-remove").check();
    await page.getByTestId("confirm-action").click();
    await page.waitForURL((u) => u.pathname === "/");
    expect(fs.existsSync(wt.path)).toBe(false);
    expect(git(repo, "rev-parse", "--verify", `refs/heads/${wt.branch}`)).toBe(head);
  });

  test("a worktree needs a repository: the sentence says why, and no session is made", async ({
    page,
    api,
    stack,
    request,
  }) => {
    // The stack's only root is the repository itself: New session's worktree button says why it is off.
    await page.goto(stack.url);
    const button = page.getByTestId("new-worktree-session").first();
    await expect(button).toBeDisabled();
    await expect(button).toHaveAttribute("title", /SWITCHBOARD_WORKSPACE_ROOTS/);
    const before = ((await (await request.get(api.base())).json()) as { items: Session[] }).items.length;
    const plain = fs.mkdtempSync(path.join(stack.workspace, "plain-"));
    // The stack's workspace is itself a repository: a `.git` file naming no repository stops git's search here.
    fs.writeFileSync(path.join(plain, ".git"), `gitdir: ${path.join(plain, "missing")}\n`);
    const r = await request.post(api.base(), { data: { directory: plain, worktree: true } });
    expect(r.status()).toBe(409);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/git repository/);
    const after = ((await (await request.get(api.base())).json()) as { items: Session[] }).items.length;
    expect(after).toBe(before);
    const bad = await request.post(api.base(), { data: { branch: "x" } });
    expect(bad.status()).toBe(400);
  });
});

test.describe("terminal", () => {
  test("a terminal opens in the session's directory; typed input runs and its output shows; closing it ends it", async ({
    page,
    api,
    stack,
    request,
  }) => {
    const session = await api.createSession("terminal");
    await ReviewPage.open(page, stack.backendId, session.id);
    await page.getByTestId("open-terminal").click();
    const term = page.getByTestId("terminal");
    await expect(term.locator(".xterm-rows")).toBeVisible();
    const listed = async () =>
      (
        (await (await request.get(`${api.base(session.id)}/terminals`)).json()) as {
          items: { id: string; cols: number; rows: number }[];
        }
      ).items;
    await expect.poll(async () => (await listed()).length).toBe(1);

    await term.click();
    await page.keyboard.type("echo typed-$((6*7)); pwd; stty size\n");
    await expect(term.locator(".xterm-rows")).toContainText("typed-42");
    const dir = session.directory ?? stack.workspace;
    await expect(term.locator(".xterm-rows")).toContainText(dir);
    // The size the panel fitted is the pty's: `stty size` prints rows and columns.
    const [t] = await listed();
    await expect(term.locator(".xterm-rows")).toContainText(`${t!.rows} ${t!.cols}`);

    // The stream resumes after Last-Event-ID: the first frame after id 1 is id 2.
    const res = await fetch(`${api.base(session.id)}/terminals/${t!.id}/stream`, {
      headers: { ...authHeaders(stack), "last-event-id": "1" },
      signal: AbortSignal.timeout(15_000),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    let text = "";
    while (!/^id: \d+$/m.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(/^id: (\d+)$/m.exec(text)![1]).toBe("2");

    if (process.env.SCREENSHOTS) {
      await page.keyboard.type("ls -la\n");
      await expect(term.locator(".xterm-rows")).toContainText("README.md");
      for (const theme of ["dark", "light"] as const) {
        await page.evaluate((th) => {
          localStorage.setItem("sb-theme", th);
          document.documentElement.dataset.theme = th;
        }, theme);
        await page.waitForTimeout(200); // the terminal takes the new palette on the attribute change
        await page.screenshot({ path: `docs/screenshots/terminal-${theme}.png` });
      }
    }
    await page.getByTestId("terminal-close").click();
    await expect.poll(async () => (await listed()).length).toBe(0);
    const gone = await request.post(`${api.base(session.id)}/terminals/${t!.id}/input`, { data: { data: "ls\n" } });
    expect(gone.status()).toBe(404);
  });
});

test.describe("file browser", () => {
  test("the session directory as a tree: a file opens read-only, highlighted, and is mentioned into the prompt", async ({
    page,
    api,
    stack,
    request,
  }) => {
    const folder = `guide-${Date.now().toString(36)}`;
    fs.mkdirSync(path.join(stack.workspace, folder));
    fs.writeFileSync(path.join(stack.workspace, folder, "setup.ts"), "export const port = 4096;\n");
    fs.writeFileSync(path.join(stack.workspace, folder, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
    const { s: session, sp: rp } = await api.open(page, "files", ReviewPage);
    await page.getByTestId("open-files").click();
    const entry = (p: string) => page.locator(`[data-testid="fs-entry"][data-path="${p}"]`);
    await entry(folder).click();
    await entry(`${folder}/logo.png`).click();
    await expect(page.getByTestId("fs-file")).toContainText("binary file");
    await entry(`${folder}/setup.ts`).click();
    await expect(page.getByTestId("fs-file-path")).toHaveText(`${folder}/setup.ts`);
    await expect(page.getByTestId("fs-file")).toContainText("export const port = 4096;");

    await page.getByTestId("fs-mention").click();
    await expect(rp.input).toHaveValue(`@${folder}/setup.ts `);

    // Reads stay inside the session's directory.
    const out = await request.get(`${api.base(session.id)}/fs/file?path=${encodeURIComponent("../../etc/passwd")}`);
    expect(out.status()).toBe(403);
  });
});
