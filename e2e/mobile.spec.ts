/**
 * Phones and tablets (issue 18): the main flows at 390×844 and 820×1180 — open a session from the
 * drawer (or the collapsible sidebar), prompt, answer a permission and a question from the inbox,
 * review a diff, share — with no page-level horizontal scrolling at any step. With SCREENSHOTS=1 the
 * phone run regenerates docs/screenshots/phone-*.png (dark and light).
 */
import path from "node:path";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures/opencode";
import { Interrupts } from "./pages/interrupts";
import { ReviewPage } from "./pages/review-page";
import { Shell } from "./pages/shell";
import { choice, questionCall } from "../testkit/scripted-turns";
import { setTheme } from "./pages/theme";

const TURN = { timeout: 60_000 };
const shot = (name: string) => path.join(import.meta.dirname, "..", "docs", "screenshots", name);
const bash = (command: string, description = "Remove the old build output") => ({
  toolCalls: [{ name: "bash", arguments: { command, description } }],
});

async function noOverflow(shell: Shell, where: string) {
  expect(await shell.horizontalOverflow(), `page scrolls sideways: ${where}`).toBeLessThanOrEqual(0);
}

/** Both themes of the current screen, only when screenshots are asked for. */
async function screenshots(page: Page, name: string) {
  if (!process.env.SCREENSHOTS) return;
  for (const theme of ["dark", "light"] as const) {
    await setTheme(page, theme);
    await page.waitForTimeout(300);
    await page.screenshot({ path: shot(`${name}-${theme}.png`) });
  }
  await setTheme(page, "dark");
}

for (const device of [
  { name: "phone", viewport: { width: 390, height: 844 }, phone: true },
  { name: "tablet", viewport: { width: 820, height: 1180 }, phone: false },
]) {
  test.describe(device.name, () => {
    test.use({ viewport: device.viewport, hasTouch: true });

    test(`${device.name}: open from the sidebar, prompt, answer from the inbox, review, share`, async ({
      page,
      api,
      stack,
    }) => {
      test.setTimeout(240_000);
      const shell = new Shell(page);
      const rp = new ReviewPage(page);
      const ui = new Interrupts(page);
      await page.addInitScript(() => {
        if (!localStorage.getItem("sb-theme")) localStorage.setItem("sb-theme", "dark");
      });
      const file = path.join(stack.workspace, `notes-${device.name}.md`);
      const s = await api.createSession(`Write the release notes (${device.name})`);

      await page.goto("/");
      await expect(page.getByTestId("home")).toBeVisible();
      await noOverflow(shell, "home");
      if (device.phone) {
        // The drawer: closed at first; opens from the menu button, keeps the focus, Escape closes it
        // and gives the focus back.
        await expect(shell.sidebarFrame).toHaveAttribute("data-open", "false");
        await expect(page.getByTestId("sidebar")).toBeHidden();
        await shell.toggle.click();
        await expect(shell.sidebarFrame).toHaveAttribute("data-open", "true");
        await expect(shell.sidebarFrame).toHaveAttribute("role", "dialog");
        for (let i = 0; i < 30; i++) {
          await page.keyboard.press("Tab");
          expect(
            await shell.sidebarFrame.evaluate((el) => el.contains(document.activeElement)),
            "Tab stays in the drawer",
          ).toBe(true);
        }
        await page.keyboard.press("Escape");
        await expect(shell.sidebarFrame).toHaveAttribute("data-open", "false");
        await expect(shell.toggle).toBeFocused();
      } else {
        // A tablet keeps the sidebar beside the page, collapsible.
        await expect(page.getByTestId("sidebar")).toBeVisible();
        await shell.toggle.click();
        await expect(page.getByTestId("sidebar")).toBeHidden();
        await shell.toggle.click();
        await expect(page.getByTestId("sidebar")).toBeVisible();
      }

      // Open the session from the sidebar and prompt: a write (for the review) and a permission.
      await shell.openSession(s.id);
      await expect(rp.view).toHaveAttribute("data-loaded", "true");
      await expect(rp.connection).toHaveAttribute("data-state", "connected");
      stack.model.enqueue(
        {
          reasoning: "The notes go in a markdown file; then the old build output has to go.",
          text: "Writing the notes first.",
          toolCalls: [
            {
              name: "write",
              arguments: {
                filePath: file,
                content:
                  "# Release notes\n\n- Phones get a drawer and sheets\n- The command palette finds any session\n- Screen readers hear status changes once\n\nconst aVeryLongLineThatOnlyFitsByScrollingInsideItsOwnCard = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];\n",
              },
            },
          ],
        },
        bash("echo ask-clean && rm -rf dist"),
        {
          text: "Notes written and the build output is gone. A very-long-unbroken-identifier_that_would_push_the_page_sideways_if_it_could_aaaaaaaaaaaaaaaaaaaaaaaa.",
        },
      );
      await rp.prompt("Write the release notes, then clean the build output.");
      await expect(ui.permission()).toBeVisible(TURN);
      // Screen readers hear the change of phase once, from the one polite live region.
      const announcer = page.getByTestId("status-announcer");
      await expect(announcer).toHaveAttribute("aria-live", "polite");
      await expect(announcer).toHaveText(/^The agent is waiting for you: /);
      await noOverflow(shell, "permission card");
      // Interrupt buttons are big enough for a thumb on a phone.
      if (device.phone) {
        for (const id of ["permission-allow-once", "permission-reject"]) {
          const box = await page.getByTestId(id).boundingBox();
          expect(box!.height, id).toBeGreaterThanOrEqual(44);
        }
      }
      if (device.phone) await screenshots(page, "phone-permission");

      // Answer it from the inbox in the sidebar.
      await shell.openSidebar();
      // Earlier specs share this console and may leave their own requests waiting: only this session's count.
      const mine = ui.inboxItems().filter({ has: page.locator(`a[href$="/${s.id}"]`) });
      await expect(mine).toHaveCount(1);
      if (device.phone) {
        const box = await mine.getByTestId("inbox-allow").boundingBox();
        expect(box!.height).toBeGreaterThanOrEqual(44);
        await screenshots(page, "phone-drawer");
      }
      await mine.getByTestId("inbox-allow").click();
      await expect(mine).toHaveCount(0);
      if (device.phone) {
        await page.keyboard.press("Escape");
        await expect(shell.sidebarFrame).toHaveAttribute("data-open", "false");
      }
      await expect(rp.assistantText().last()).toContainText("build output is gone", TURN);
      await rp.waitStatus("idle");
      await expect(announcer).toHaveText("The agent is done");
      await noOverflow(shell, "finished turn with a long unbroken word");
      if (device.phone) {
        // The smallest phones: nothing scrolls the page sideways at 360 px either.
        await page.setViewportSize({ width: 360, height: 780 });
        await rp.expand(rp.toolCards("write").first());
        await noOverflow(shell, "session at 360 px");
        await page.goto("/settings");
        await expect(page.getByTestId("backend-list")).toBeVisible();
        await noOverflow(shell, "settings at 360 px");
        await page.goto("/settings/shares");
        await expect(page.getByTestId("shares-settings")).toBeVisible();
        await noOverflow(shell, "shares at 360 px");
        await page.setViewportSize(device.viewport);
        await page.goto(`/sessions/${stack.backendId}/${s.id}`);
        await expect(rp.view).toHaveAttribute("data-loaded", "true");
      }
      await screenshots(page, `${device.name}-session`);

      // A question, answered from the inbox: its link opens the session with the form.
      const q = await api.createSession(`Pick a package manager (${device.name})`);
      stack.model.enqueue(
        questionCall([
          choice("Which package manager should the project use?", "Tooling", {
            npm: "ships with Node",
            pnpm: "fast, strict",
          }),
        ]),
        { text: "Going with pnpm." },
      );
      await api.prompt(q.id, "Set up the package manager.");
      await shell.openSidebar();
      const asked = ui.inboxItems().filter({ has: page.locator(`a[href$="/${q.id}"]`) });
      await expect(asked).toHaveCount(1, TURN);
      await asked.getByTestId("inbox-link").click();
      await page.waitForURL((u) => u.pathname.endsWith(q.id));
      await expect(ui.question()).toBeVisible();
      await noOverflow(shell, "question form");
      if (device.phone) await screenshots(page, "phone-question");
      await ui.option("pnpm").click();
      await page.getByTestId("question-submit").click();
      await expect(rp.assistantText().last()).toHaveText("Going with pnpm.", TURN);

      // Review the diff of the first session: a full-screen sheet on a phone.
      await shell.openSession(s.id);
      await expect(rp.view).toHaveAttribute("data-loaded", "true");
      await shell.sessionAction("changes");
      await expect(rp.panel).toBeVisible();
      await expect(rp.reviewFile(path.basename(file))).toBeVisible();
      if (device.phone) {
        const box = await rp.panel.boundingBox();
        expect(box).toMatchObject({ x: 0, y: 0, width: 390, height: 844 });
      }
      await noOverflow(shell, "review panel");
      if (device.phone) await screenshots(page, "phone-review");
      await page.keyboard.press("Escape");
      await expect(rp.panel).toBeHidden();

      // Share: the dialog (a sheet on a phone), a link created.
      await shell.sessionAction("share");
      const dialog = page.getByTestId("share-dialog");
      await expect(dialog).toBeVisible();
      await noOverflow(shell, "share dialog");
      if (device.phone) await screenshots(page, "phone-share");
      await dialog.getByTestId("share-create").click();
      await expect(dialog.getByTestId("share-url")).toHaveValue(/\/share\//);
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
      await noOverflow(shell, "after sharing");
    });
  });
}

test("installable: the manifest, its icons and the theme colours are served without a login", async ({
  playwright,
  stack,
}) => {
  const anon = await playwright.request.newContext({ baseURL: stack.url });
  try {
    const r = await anon.get("/manifest.webmanifest");
    expect(r.status()).toBe(200);
    const m = (await r.json()) as {
      display: string;
      start_url: string;
      icons: { src: string; sizes: string; purpose?: string }[];
    };
    expect(m).toMatchObject({ display: "standalone", start_url: "/" });
    expect(m.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(["192x192", "512x512"]));
    expect(m.icons.some((i) => i.purpose === "maskable")).toBe(true);
    for (const icon of m.icons) {
      const res = await anon.get(icon.src);
      expect(res.status(), icon.src).toBe(200);
    }
    const login = await (await anon.get("/login")).text();
    expect(login).toContain('rel="manifest"');
    // The page names its icon, so browsers do not ask for /favicon.ico (which would be a 404).
    const iconHref = /<link rel="icon" href="([^"]+)"/.exec(login)?.[1];
    expect(iconHref).toBeTruthy();
    expect((await anon.get(iconHref!)).status()).toBe(200);
    expect(login).toMatch(
      /name="theme-color"[^>]*media="\(prefers-color-scheme: dark\)"|media="\(prefers-color-scheme: dark\)"[^>]*name="theme-color"/,
    );
    expect(login).toMatch(/media="\(prefers-color-scheme: light\)"/);
  } finally {
    await anon.dispose();
  }
});
