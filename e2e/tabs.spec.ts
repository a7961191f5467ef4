import type { BrowserContext, Page } from "@playwright/test";
import type { StreamStats } from "../lib/api";
import type { Snapshot } from "../lib/model";
import { expect, test } from "./fixtures/opencode";
import { authHeaders, type Stack } from "../testkit/opencode-stack";
import { SessionPage } from "./pages/session-page";

/**
 * Many tabs in one browser profile share one connection pool (six HTTP/1.1 connections per host).
 * A stream per tab would starve every other request after three tabs; the console holds one live
 * stream per browser, kept by a leader tab and handed over when it goes (docs/architecture.md).
 */

async function streamStats(stack: Stack): Promise<StreamStats> {
  const r = await fetch(`${stack.url}/api/events/stats`, { headers: authHeaders(stack) });
  expect(r.status).toBe(200);
  return (await r.json()) as StreamStats;
}

async function openTab(context: BrowserContext, stack: Stack, sessionId: string): Promise<SessionPage> {
  const page = await context.newPage();
  const sp = await SessionPage.open(page, stack.backendId, sessionId);
  return sp;
}

async function leaderIndex(tabs: SessionPage[]): Promise<number> {
  const flags = await Promise.all(
    tabs.map((t) => (t.page.isClosed() ? Promise.resolve(null) : t.connection.getAttribute("data-leader"))),
  );
  return flags.indexOf("true");
}

/** The session's messages as the page shows them: role and text of each text block. */
async function shownTranscript(sp: SessionPage): Promise<string[]> {
  return sp.timeline.locator('[data-testid="message"]').evaluateAll((nodes) =>
    nodes.map((n) => {
      const texts = [...n.querySelectorAll('[data-testid="block"][data-kind="text"], [data-testid="user-text"]')].map(
        (b) => (b.textContent ?? "").trim(),
      );
      return `${n.getAttribute("data-role")}: ${texts.join(" | ")}`;
    }),
  );
}

function snapshotTranscript(s: Snapshot): string[] {
  return s.messages.map(
    (m) => `${m.role}: ${m.blocks.flatMap((b) => (b.kind === "text" ? [b.text.trim()] : [])).join(" | ")}`,
  );
}

const slowReply = (tag: string) => `${Array.from({ length: 24 }, (_, i) => `${tag}-${i + 1}`).join(" ")} ${tag}-end.`;

test.describe("many tabs in one browser", () => {
  test.setTimeout(300_000);

  test("twelve tabs share one live stream; replies stream everywhere, the leader hands over without loss, a reloaded tab rejoins", async ({
    context,
    api,
    stack,
  }) => {
    const sessions = [];
    for (let i = 0; i < 11; i++) sessions.push(await api.createSession(`tab ${i}`));

    // The first tab opened takes the lead; open it in the middle of the row so the tabs that send
    // prompts (the first and the last) outlive it.
    const tabs: SessionPage[] = new Array(12);
    tabs[5] = await openTab(context, stack, sessions[5]!.id);
    for (const i of [0, 1, 2, 3, 4, 6, 7, 8, 9]) tabs[i] = await openTab(context, stack, sessions[i]!.id);
    tabs[10] = await openTab(context, stack, sessions[10]!.id);
    tabs[11] = await openTab(context, stack, sessions[10]!.id); // the twin
    expect(await leaderIndex(tabs)).toBe(5);

    // Twelve tabs, one live stream (a handover may briefly make it two).
    await expect.poll(async () => (await streamStats(stack)).open).toBeLessThanOrEqual(2);
    expect((await streamStats(stack)).live).toBe(1);

    const replyFirst = slowReply("first");
    const replyLast = slowReply("last");
    stack.model.enqueue({ text: replyFirst, chunks: 25, delayMs: 250 }, { text: replyLast, chunks: 25, delayMs: 250 });
    await tabs[0]!.prompt("first tab asks");
    await expect(tabs[0]!.assistantText().last()).toContainText("first-2", { timeout: 30_000 });
    await tabs[11]!.prompt("last tab asks");
    // The twin tab shows the reply live, while it streams.
    await expect(tabs[10]!.messages("user").last()).toContainText("last tab asks");
    await expect(tabs[10]!.assistantText().last()).toContainText("last-2", { timeout: 30_000 });
    expect(await tabs[10]!.assistantText().last().textContent()).not.toContain("last-end.");

    // The leader tab goes away in the middle of both replies.
    await tabs[5]!.page.close();
    await expect.poll(() => leaderIndex(tabs), { timeout: 20_000 }).toBeGreaterThanOrEqual(0);
    await expect.poll(async () => (await streamStats(stack)).open).toBeLessThanOrEqual(2);

    // Every tab finishes its reply, and shows exactly the session's snapshot: nothing lost, nothing twice.
    await expect(tabs[0]!.assistantText().last()).toHaveText(replyFirst, { timeout: 60_000 });
    await expect(tabs[11]!.assistantText().last()).toHaveText(replyLast, { timeout: 60_000 });
    await expect(tabs[10]!.assistantText().last()).toHaveText(replyLast);
    await api.waitIdle(sessions[0]!.id);
    await api.waitIdle(sessions[10]!.id);
    for (const [tab, session] of [
      [tabs[0]!, sessions[0]!],
      [tabs[10]!, sessions[10]!],
      [tabs[11]!, sessions[10]!],
    ] as const) {
      const expected = snapshotTranscript(await api.snapshot(session.id));
      expect(expected).toHaveLength(2);
      await expect.poll(() => shownTranscript(tab)).toEqual(expected);
    }

    // A tab reloaded in the middle of things rejoins and follows live again.
    const reloaded = tabs[3]!;
    await reloaded.page.reload();
    await expect(reloaded.view).toHaveAttribute("data-loaded", "true");
    await expect(reloaded.connection).toHaveAttribute("data-state", "connected");
    stack.model.enqueue({ text: "Back after a reload.", chunks: 4, delayMs: 100 });
    await reloaded.prompt("are you there");
    await expect(reloaded.assistantText().last()).toHaveText("Back after a reload.");

    // Other requests never queue behind streams: with eleven tabs open a snapshot answers at once.
    const open = tabs.filter((t): t is SessionPage => Boolean(t) && !t.page.isClosed());
    expect(open).toHaveLength(11);
    const status = await open[0]!.page.evaluate(
      async (path) => (await fetch(path)).status,
      `/api/backends/${stack.backendId}/sessions/${sessions[9]!.id}/snapshot`,
    );
    expect(status).toBe(200);
    await expect.poll(async () => (await streamStats(stack)).open).toBeLessThanOrEqual(2);
    for (const t of open) await t.page.close();
  });

  test("background tabs keep receiving: an interrupt raised while a tab is hidden reaches its inbox", async ({
    context,
    api,
    stack,
  }) => {
    const s = await api.createSession("hidden tab");
    const other = await api.createSession("front tab");
    const front = await openTab(context, stack, other.id);
    const hidden = await openTab(context, stack, s.id);
    // Make the second tab hidden, as a background tab is.
    await hidden.page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
      Object.defineProperty(document, "hidden", { value: true, configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    stack.model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command: "echo ask-from-hidden", description: "Ask" } }] },
      { text: "Done." },
    );
    await api.prompt(s.id, "run it");
    await expect(hidden.page.getByTestId("permission-card")).toBeVisible({ timeout: 30_000 });
    // This session's item: tests before this one on the same stack may have left their own in the inbox.
    const item = front.page.getByTestId("inbox-item").filter({ has: front.page.locator(`a[href*="${s.id}"]`) });
    await expect(item).toHaveCount(1, { timeout: 30_000 });
    const r = await fetch(`${stack.url}/api/backends/${stack.backendId}/sessions/${s.id}/snapshot`, {
      headers: authHeaders(stack),
    });
    const snap = (await r.json()) as Snapshot;
    const interrupt = snap.interrupts[0]!;
    const answer = await fetch(
      `${stack.url}/api/backends/${stack.backendId}/sessions/${s.id}/interrupts/${interrupt.id}`,
      {
        method: "POST",
        headers: { ...authHeaders(stack), "content-type": "application/json" },
        body: JSON.stringify({ decision: "reject" }),
      },
    );
    expect(answer.status).toBeLessThan(300);
    await expect(item).toHaveCount(0, { timeout: 30_000 });
    await front.page.close();
    await hidden.page.close();
  });
});

test.describe("many shared sessions in one browser", () => {
  test("a viewer with several share pages open holds one live stream", async ({ browser, api, stack }) => {
    test.setTimeout(180_000);
    const ids: string[] = [];
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) {
      const s = await api.createSession(`shared ${i}`);
      ids.push(s.id);
      const r = await fetch(`${stack.url}/api/shares`, {
        method: "POST",
        headers: { ...authHeaders(stack), "content-type": "application/json" },
        body: JSON.stringify({ backendId: stack.backendId, sessionId: s.id, live: true, expiresIn: "1d" }),
      });
      expect(r.status).toBe(201);
      tokens.push(((await r.json()) as { token: string }).token);
    }
    // Earlier share tests may have had this address blocked for unknown tokens (a one-minute window).
    await expect
      .poll(async () => (await fetch(`${stack.url}/api/shares/public/${tokens[0]}/snapshot`)).status, {
        timeout: 90_000,
        intervals: [2_000],
      })
      .toBe(200);
    // A viewer without a login: a fresh context.
    const viewer = await browser.newContext();
    const pages: Page[] = [];
    for (const token of tokens) {
      const p = await viewer.newPage();
      await p.goto(`${stack.url}/share/${token}`);
      await expect(p.getByTestId("share-connection")).toHaveAttribute("data-state", "connected", { timeout: 30_000 });
      pages.push(p);
    }
    await expect.poll(async () => (await streamStats(stack)).live).toBe(1);
    stack.model.enqueue({ text: "Seen by every viewer of share three.", chunks: 4, delayMs: 100 });
    await api.prompt(ids[3]!, "hello viewers");
    await expect(pages[3]!.getByText("Seen by every viewer of share three.")).toBeVisible({ timeout: 30_000 });
    await viewer.close();
  });
});
