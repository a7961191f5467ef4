/**
 * Search every session (docs/search.md) on a real OpenCode: words of a prompt and of a reply sent
 * through the console, and of a session made on the OpenCode server directly (the console never
 * opened it: the background pass reads it), found within 60 s; a hit opens its session with find in
 * session on the word; the results page groups hits by session and passes axe at both widths and in
 * both themes; hostile queries never answer 5xx; search needs the login.
 */
import AxeBuilder from "@axe-core/playwright";
import type { SearchPage as SearchResults } from "../lib/api";
import { expect, test } from "./fixtures/opencode";
import { authHeaders, type Stack } from "../testkit/opencode-stack";
import { SearchPage } from "./pages/search-page";
import { Shell } from "./pages/shell";

const WITHIN = { timeout: 60_000, intervals: [500, 1000, 2000] };

async function search(stack: Stack, q: string, headers = authHeaders(stack)): Promise<Response> {
  return fetch(`${stack.url}/api/search?${new URLSearchParams({ q })}`, { headers });
}
async function hits(stack: Stack, q: string): Promise<SearchResults["items"]> {
  const r = await search(stack, q);
  expect(r.status).toBe(200);
  return ((await r.json()) as SearchResults).items;
}

test.describe("search every session", () => {
  test("finds a prompt's and a reply's words, and a session made on the server directly; a hit opens find at its message", async ({
    page,
    api,
    stack,
  }) => {
    test.setTimeout(180_000);
    stack.model.enqueue({ text: "The reply mentions a quokka sanctuary." });
    const s = await api.createSession("searchable session");
    await api.prompt(s.id, "tell me about the wombatlike creature");
    await api.waitIdle(s.id);
    await expect
      .poll(async () => (await hits(stack, "wombatlike")).map((h) => [h.sessionId, h.role]), WITHIN)
      .toContainEqual([s.id, "user"]);
    await expect
      .poll(async () => (await hits(stack, "quokka")).map((h) => [h.sessionId, h.role]), WITHIN)
      .toContainEqual([s.id, "assistant"]);

    // A session made on the OpenCode server itself, never opened in the console.
    const oc = await stack.opencode();
    const ocHeaders = { ...oc.headers, "content-type": "application/json" };
    stack.model.enqueue({ text: "Direct reply." });
    const made = await fetch(`${oc.url}/session`, { method: "POST", headers: ocHeaders, body: "{}" });
    expect(made.status).toBe(200);
    const direct = (await made.json()) as { id: string };
    const sent = await fetch(`${oc.url}/session/${direct.id}/prompt_async`, {
      method: "POST",
      headers: ocHeaders,
      body: JSON.stringify({ parts: [{ type: "text", text: "narwhalesque words typed elsewhere" }] }),
    });
    expect(sent.status).toBeLessThan(300);
    await expect
      .poll(async () => (await hits(stack, "narwhalesque")).map((h) => h.sessionId), WITHIN)
      .toContain(direct.id);

    // The palette finds the reply's word; its hit opens the session with find on it, at that message.
    const shell = new Shell(page);
    await page.goto("/");
    await expect(page.getByTestId("home")).toBeVisible();
    await page.locator("body").focus();
    await shell.openPalette();
    await page.keyboard.type("quokka");
    const hit = page.getByTestId("palette-hit").first();
    await expect(hit).toContainText("quokka");
    await expect(hit.locator("mark")).toHaveText(/quokka/i);
    await hit.click();
    await page.waitForURL((u) => u.pathname.endsWith(`/${s.id}`) && u.searchParams.get("find") === "quokka");
    await expect(page.getByTestId("find-input")).toHaveValue("quokka");
    await expect(page.getByTestId("find-bar")).toHaveAttribute("data-count", "1");

    // The results page: hits grouped by session, opened by the keyboard too.
    const results = new SearchPage(page);
    await results.goto("wombatlike");
    await expect(results.group(s.id)).toBeVisible();
    await expect(results.group(s.id)).toContainText("searchable session");
    await expect(results.group(s.id).getByTestId("search-hit")).toHaveCount(1);
    await results.input.fill("no such wordxyz");
    await expect(results.summary).toHaveText("No message matches.");
    await expect(page).toHaveURL(/\/search\?q=no\+such\+wordxyz$/);
  });

  test("the results page passes axe in both themes, on a phone and a desktop", async ({ browser, api, stack }) => {
    stack.model.enqueue({ text: "Some pangolin facts." });
    const s = await api.createSession("axe search");
    await api.prompt(s.id, "pangolin please");
    await api.waitIdle(s.id);
    await expect.poll(async () => (await hits(stack, "pangolin")).length, WITHIN).toBeGreaterThan(0);
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1360, height: 860 },
    ]) {
      for (const theme of ["dark", "light"]) {
        const ctx = await browser.newContext({ viewport, baseURL: stack.url, reducedMotion: "reduce" });
        await ctx.addCookies([
          { name: "sb_session", value: stack.sessionCookie, url: stack.url, httpOnly: true, sameSite: "Strict" },
        ]);
        await ctx.addInitScript((t) => localStorage.setItem("sb-theme", t), theme);
        const page = await ctx.newPage();
        const results = new SearchPage(page);
        await results.goto("pangolin");
        await expect(results.hits.first()).toBeVisible();
        const scrollX = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(scrollX, "no sideways scroll").toBeLessThanOrEqual(0);
        const r = await new AxeBuilder({ page })
          .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
          .analyze();
        const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
        expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`)).toEqual([]);
        await ctx.close();
      }
    }
  });

  test("hostile queries never answer 5xx, and search needs the login", async ({ stack }) => {
    const hostile = [
      '"',
      '"unbalanced',
      "NEAR(a b",
      "a NEAR b",
      "-x",
      "*",
      "x*",
      "((((",
      "))",
      "a\u0000b",
      "col:x",
      "^x",
      "OR AND NOT",
      "'; DROP TABLE search_fts; --",
      // Long, but within what a URL carries (Node answers 431 above 16 KB of request head).
      "ü".repeat(1_500),
      "x ".repeat(4_000),
    ];
    for (const q of hostile) {
      const r = await search(stack, q);
      expect(r.status, JSON.stringify(q.slice(0, 40))).toBe(200);
    }
    const long = await search(stack, "x".repeat(12_000));
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    expect((await search(stack, "x", {})).status).toBe(401);
    expect((await fetch(`${stack.url}/api/search/status`)).status).toBe(401);
  });
});
