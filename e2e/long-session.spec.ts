import { test, expect } from "./fixtures/opencode";
import { generateLongSession, importLongSession } from "../testkit/long-session";
import { SessionPage } from "./pages/session-page";

/**
 * A 5,000-message session (22,500 blocks), seeded with `opencode import` as `npm run bench` does,
 * in the real console: it opens at its newest message, streams a reply, pages back to its first
 * message and finds a word from it — with the DOM bounded by what is on screen all along.
 */
const FIRST = "Zanzibar";
const LAST = "Omega";
/** Rows and elements the timeline may hold at once: a screenful plus overscan, never the session. */
const MAX_ROWS = 40;
const MAX_TIMELINE_ELEMENTS = 2000;

test.describe("long sessions", () => {
  test("a 5,000-message session opens, streams, pages back to its first message and finds a word from it", async ({
    page,
    stack,
  }) => {
    test.setTimeout(600_000);
    const doc = generateLongSession({
      directory: stack.workspace,
      messages: 5000,
      firstWord: FIRST,
      lastWord: LAST,
      title: "e2e long session",
    });
    const sessionId = await importLongSession(doc, { directory: stack.workspace, env: stack.home.env });

    const sp = await SessionPage.open(page, stack.backendId, sessionId);
    await expect(sp.timeline.getByText(LAST).last()).toBeVisible();
    expect(await sp.renderedItems().count()).toBeLessThanOrEqual(MAX_ROWS);
    expect(await sp.timelineElementCount()).toBeLessThan(MAX_TIMELINE_ELEMENTS);

    // A reply streams in at the bottom, and the view follows it.
    const reply = `Streamed into a long session: ${Array.from({ length: 60 }, (_, i) => `tok${i}`).join(" ")} done.`;
    // A modest reported usage, so OpenCode does not compact the long history after the turn.
    stack.model.enqueue({
      text: reply,
      chunks: 60,
      delayMs: 20,
      match: "long-session-reply",
      usage: { prompt: 2000, completion: 60 },
    });
    await sp.ask("Reply please (long-session-reply)", reply, { timeout: 60_000 });
    await expect(sp.timeline.getByText("tok59 done.")).toBeInViewport();
    expect(await sp.renderedItems().count()).toBeLessThanOrEqual(MAX_ROWS);

    // Paging back through the whole history keeps the DOM bounded.
    const mostRows = await sp.scrollToStart();
    expect(mostRows).toBeLessThanOrEqual(MAX_ROWS);
    await expect(sp.timeline.getByText(`${FIRST} is where this session starts.`)).toBeVisible();
    expect(await sp.renderedItems().count()).toBeLessThanOrEqual(MAX_ROWS);
    expect(await sp.timelineElementCount()).toBeLessThan(MAX_TIMELINE_ELEMENTS);
    await expect(sp.timeline).toHaveAttribute("data-count", String(doc.messages.length + 2));

    // Find in session, from a fresh load (only the newest page loaded): it pages older history on
    // demand until it reaches the word, jumps there and highlights it.
    await page.reload();
    await expect(sp.view).toHaveAttribute("data-loaded", "true");
    await expect(sp.timeline.getByText(LAST).last()).toBeVisible();
    await sp.find(FIRST);
    await expect(page.getByTestId("find-status")).toHaveText("1 of 1", { timeout: 300_000 });
    await expect(sp.currentFindRow()).toContainText(`${FIRST} is where this session starts.`);
    await expect(sp.currentFindRow()).toBeInViewport();
    await expect
      .poll(() =>
        sp.timeline
          .locator("div")
          .first()
          .evaluate(() => (CSS as unknown as { highlights: Map<string, unknown> }).highlights.has("sb-find-current")),
      )
      .toBe(true);
    expect(await sp.renderedItems().count()).toBeLessThanOrEqual(MAX_ROWS);
    expect(await sp.timelineElementCount()).toBeLessThan(MAX_TIMELINE_ELEMENTS);

    // A word in every turn: hits counted across the loaded history, Enter steps to a newer one.
    const bar = page.getByTestId("find-bar");
    await page.getByTestId("find-input").fill("module 7 first");
    await expect.poll(async () => Number(await bar.getAttribute("data-count"))).toBeGreaterThan(1);
    const count = Number(await bar.getAttribute("data-count"));
    await expect(bar).toHaveAttribute("data-position", String(count - 1)); // the newest hit first
    await page.getByTestId("find-input").press("Shift+Enter");
    await expect(bar).toHaveAttribute("data-position", String(count - 2));
    await expect(sp.currentFindRow()).toContainText("Looking at module 7 first.");
    await page.getByTestId("find-input").press("Escape");
    await expect(page.getByTestId("find-bar")).toBeHidden();
  });
});
