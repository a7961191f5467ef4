/**
 * The command palette (Ctrl/Cmd+K) and the shortcuts help (`?`), by keyboard only: it finds a session
 * of another backend by part of its title and opens it, and runs the open session's actions.
 */
import { test, expect } from "./fixtures/opencode";
import { authHeaders } from "../testkit/opencode-stack";
import { createOpencodeHome } from "../testkit/opencode-env";
import { startOpencodeServer } from "../testkit/opencode-server";
import type { Backend, Session } from "../lib/model";
import { Shell } from "./pages/shell";
import { SessionPage } from "./pages/session-page";

test("the palette finds a session of any backend by part of its title and opens it, keyboard only", async ({
  page,
  api,
  stack,
}) => {
  test.setTimeout(120_000);
  // A second backend: another real `opencode serve` with its own home, added at run time.
  const home = await createOpencodeHome({ modelBaseUrl: stack.model.url });
  const server = await startOpencodeServer({ env: home.env, cwd: stack.workspace });
  const headers = { "content-type": "application/json", ...authHeaders(stack) };
  const added = await fetch(`${stack.url}/api/backends`, {
    method: "POST",
    headers,
    body: JSON.stringify({ kind: "opencode", label: "Second OpenCode", config: { baseUrl: server.url } }),
  });
  expect(added.status).toBe(201);
  const second = (await added.json()) as Backend;
  try {
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${stack.url}/api/backends/${second.id}`, { headers })).json()) as Backend).status,
        { timeout: 45_000 },
      )
      .toBe("ready");
    const there = await fetch(`${stack.url}/api/backends/${second.id}/sessions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: "Quarterly zebra migration" }),
    });
    expect(there.status).toBe(201);
    const target = (await there.json()) as Session;
    const here = await api.createSession("Local zebra notes");

    const shell = new Shell(page);
    await page.goto("/");
    await expect(page.getByTestId("home")).toBeVisible();
    await page.locator("body").focus();
    await shell.openPalette();
    await page.keyboard.type("zebra migr");
    const hits = page.getByTestId("palette-session");
    await expect(hits).toHaveCount(1);
    await expect(hits.first()).toHaveAttribute("data-id", target.id);
    await expect(hits.first()).toContainText("Second OpenCode");
    // Both backends answer a shorter query; arrows move between the results.
    await page.keyboard.press("Control+a");
    await page.keyboard.type("zebra");
    await expect(hits).toHaveCount(2);
    const ids = await hits.evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
    expect(ids.sort()).toEqual([here.id, target.id].sort());
    const input = page.getByTestId("palette-input");
    while ((await page.locator('[role="option"][aria-selected="true"]').getAttribute("data-id")) !== target.id)
      await input.press("ArrowDown");
    await input.press("Enter");
    await page.waitForURL(new RegExp(`/sessions/${second.id}/${target.id}$`));
    await expect(shell.palette).toBeHidden();
    await expect(page.getByTestId("session-title")).toHaveText("Quarterly zebra migration");

    // The open session's actions: "Review changes" opens the panel; Escape gives the focus back.
    await shell.openPalette();
    await page.keyboard.type("review changes");
    await expect(page.locator('[role="option"][aria-selected="true"]')).toContainText("Review changes");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("review-panel")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("review-panel")).toBeHidden();

    // Theme from the palette: the page and the browser's bar colour (theme-color) follow it.
    const before = await page.locator("html").getAttribute("data-theme");
    const next = before === "dark" ? "light" : "dark";
    await shell.openPalette();
    await page.keyboard.type("theme");
    await expect(page.locator('[role="option"][aria-selected="true"]')).toContainText(`Switch to the ${next} theme`);
    await page.keyboard.press("Enter");
    await expect(page.locator("html")).toHaveAttribute("data-theme", next);
    const colors = await page
      .locator('meta[name="theme-color"]')
      .evaluateAll((ms) => ms.map((m) => m.getAttribute("content")));
    expect(colors.length).toBeGreaterThan(0);
    expect(new Set(colors)).toEqual(new Set([next === "light" ? "#ffffff" : "#14171c"]));

    // `?` lists the shortcuts; Escape closes the sheet and the focus returns.
    await page.locator("body").focus();
    await page.keyboard.press("?");
    await expect(shell.help).toBeVisible();
    await expect(shell.help).toContainText("Command palette");
    await page.keyboard.press("Tab");
    expect(await shell.help.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await page.keyboard.press("Escape");
    await expect(shell.help).toBeHidden();
  } finally {
    await fetch(`${stack.url}/api/backends/${second.id}`, { method: "DELETE", headers });
    await server.stop();
  }
});

test("Tab reaches every control of the session page, each with a visible focus ring", async ({ page, api, stack }) => {
  const s = await api.createSession("Focus walk");
  await SessionPage.open(page, stack.backendId, s.id);
  await page.locator("body").focus();
  const seen = new Set<string>();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    const info = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const cs = getComputedStyle(el);
      // The accent colour as the browser computes it, to recognise a field's focus border.
      const probe = document.createElement("span");
      probe.style.color = "var(--sb-accent)";
      document.body.append(probe);
      const accent = getComputedStyle(probe).color;
      probe.remove();
      // A field without its own outline shows the focus on its frame: an accent border or a ring.
      const bordered = [el, el.parentElement, el.parentElement?.parentElement].some(
        (n) =>
          n &&
          (getComputedStyle(n).borderTopColor === accent || (n !== el && getComputedStyle(n).boxShadow !== "none")),
      );
      const ring =
        (cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== "none" || bordered;
      return { id: el.dataset.testid ?? el.getAttribute("aria-label") ?? el.tagName, ring };
    });
    if (!info) continue;
    expect(info.ring, `focus ring on ${info.id}`).toBe(true);
    seen.add(info.id);
  }
  for (const id of [
    "sidebar-toggle",
    "session-search",
    "composer-input",
    "send",
    "session-menu",
    "share-button",
    "open-changes",
  ]) {
    if (id === "send") continue; // disabled while the prompt is empty
    expect([...seen], id).toContain(id);
  }
});
