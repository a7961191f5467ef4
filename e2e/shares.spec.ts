import type { Browser, BrowserContext, Page } from "@playwright/test";
import type { CreatedShare, CreateShareBody } from "../lib/api";
import { test, expect } from "./fixtures/opencode";
import { authHeaders, type Stack } from "../testkit/opencode-stack";
import { SessionPage } from "./pages/session-page";

// Fake secrets, shaped like real ones.
const FAKE_KEY = "sk-proj-FAKEe2eKEY0123456789abcdefABCDEF0123";
const KEY_BODY = "MIIEowIBAAKCAQEAfakeE2Ekey0123456789abcdefghijklmnop";
const PRIVATE_KEY = [
  "-----BEGIN RSA PRIVATE KEY-----",
  KEY_BODY,
  "QWERTYUIOPasdfghjkl0123456789zxcvbnmFAKEFAKE",
  "-----END RSA PRIVATE KEY-----",
].join("\n");
const DB_LINE = "DATABASE_URL=postgres://u:p@h/db";
const SECRETS_COMMAND = ["cat <<'EOF'", `OPENAI_API_KEY=${FAKE_KEY}`, PRIVATE_KEY, DB_LINE, "EOF"].join("\n");

/** A browser that has never seen the console: no cookies, no storage. */
async function freshViewer(browser: Browser): Promise<{ ctx: BrowserContext; page: Page; consoleRequests: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await ctx.newPage();
  const consoleRequests: string[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith("/api/") && !u.pathname.startsWith("/api/shares/public/"))
      consoleRequests.push(u.pathname);
  });
  return { ctx, page, consoleRequests };
}

async function createShare(
  stack: Stack,
  sessionId: string,
  opts: Partial<CreateShareBody> = {},
): Promise<CreatedShare> {
  const r = await fetch(`${stack.url}/api/shares`, {
    method: "POST",
    headers: { "content-type": "application/json", ...authHeaders(stack) },
    body: JSON.stringify({ backendId: stack.backendId, sessionId, ...opts }),
  });
  expect(r.status).toBe(201);
  return (await r.json()) as CreatedShare;
}

const shareText = (page: Page) =>
  page
    .getByTestId("timeline")
    .locator('[data-testid="message"][data-role="assistant"] [data-testid="block"][data-kind="text"]');

test.describe("share links", () => {
  test("a share created from the header opens in a browser that never logged in", async ({
    page,
    api,
    stack,
    browser,
    request,
  }) => {
    const reply = "The build uses tsc and vitest; nothing else is configured.";
    stack.model.enqueue({ text: reply });
    const { sp } = await api.open(page, "share from header", SessionPage);
    await sp.prompt("how does it build?");
    // The first turn of a fresh OpenCode can be slow on a loaded machine.
    await expect(sp.assistantText().last()).toHaveText(reply, { timeout: 60_000 });
    await sp.waitStatus("idle");

    await page.getByTestId("share-button").click();
    const dialog = page.getByTestId("share-dialog");
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("share-summary")).toContainText("the whole session");
    await expect(dialog.getByTestId("redaction-count")).toHaveText("No secrets found");
    await dialog.getByTestId("share-mode-snapshot").click();
    await expect(dialog.getByTestId("share-summary")).toContainText("as it is now");
    await dialog.getByTestId("share-mode-live").click();
    await dialog.getByTestId("share-expiry-7d").click();
    await expect(dialog.getByTestId("share-summary")).toContainText("for 7 days");
    await dialog.getByTestId("share-create").click();
    const url = await dialog.getByTestId("share-url").inputValue();
    expect(url).toMatch(/\/share\/[A-Za-z0-9_-]{43}$/);
    await dialog.getByTestId("share-done").click();

    // Server-rendered: the reply is in the HTML before any script runs.
    const html = await (await request.get(url)).text();
    expect(html).toContain("The build uses tsc and vitest");

    const viewer = await freshViewer(browser);
    const res = await viewer.page.goto(url);
    expect(res?.status()).toBe(200);
    await expect(viewer.page.getByTestId("share-view")).toBeVisible();
    await expect(viewer.page.getByTestId("share-title")).toHaveText("share from header");
    await expect(shareText(viewer.page)).toHaveText([reply]);
    await expect(viewer.page.getByTestId("share-scope")).toContainText("Whole session");
    await expect(viewer.page.getByTestId("share-expiry")).toContainText(/Expires in (7 days|16[0-9] h)/);
    await expect(viewer.page.getByTestId("share-connection")).toHaveAttribute("data-state", "connected");
    // Read-only, and none of the console around it.
    for (const id of ["composer-input", "sidebar", "share-button", "stop", "permission-card"])
      await expect(viewer.page.getByTestId(id)).toHaveCount(0);
    expect(viewer.consoleRequests).toEqual([]);
    expect(await viewer.ctx.cookies()).toEqual([]);
    await viewer.ctx.close();

    // The management list shows it.
    await page.goto("/settings/shares");
    await expect(
      page.locator('[data-testid="share-row"][data-state="active"]').filter({ hasText: "share from header" }),
    ).toHaveCount(1);
  });

  test("a live share receives a new reply as it streams", async ({ api, stack, browser }) => {
    const s = await api.createSession("live share");
    const share = await createShare(stack, s.id, { live: true, expiresIn: "1h" });
    const viewer = await freshViewer(browser);
    await viewer.page.goto(share.url);
    await expect(viewer.page.getByTestId("share-connection")).toHaveAttribute("data-state", "connected");
    await expect(viewer.page.getByTestId("empty-session")).toBeVisible();

    const reply = `Streaming to a shared page: ${Array.from({ length: 16 }, (_, i) => `word${i}`).join(" ")} — done.`;
    stack.model.enqueue({ text: reply, chunks: 16, delayMs: 150 });
    await api.prompt(s.id, "say something long");
    await expect(
      viewer.page.getByTestId("timeline").locator('[data-testid="message"][data-role="user"]'),
    ).toContainText("say something long");
    // Seen while it streams: a prefix of the reply, not all of it yet.
    await expect
      .poll(
        async () => {
          const t = (
            (await shareText(viewer.page)
              .last()
              .textContent()
              .catch(() => "")) ?? ""
          ).trim();
          return t.length > 0 && t.length < reply.length && reply.startsWith(t);
        },
        { timeout: 20_000, intervals: [50] },
      )
      .toBe(true);
    await expect(shareText(viewer.page).last()).toHaveText(reply);
    expect(viewer.consoleRequests).toEqual([]);
    await viewer.ctx.close();
  });

  test("revoking closes the open page at once and a reload fails", async ({ page, api, stack, browser }) => {
    stack.model.enqueue({ text: "Something worth sharing." });
    const s = await api.createSession("revoke me");
    await api.prompt(s.id, "hi");
    await api.waitIdle(s.id);
    const share = await createShare(stack, s.id, { expiresIn: "never" });
    const viewer = await freshViewer(browser);
    await viewer.page.goto(share.url);
    await expect(shareText(viewer.page)).toHaveText(["Something worth sharing."]);
    await expect(viewer.page.getByTestId("share-connection")).toHaveAttribute("data-state", "connected");

    await page.goto("/settings/shares");
    const row = page.locator(`[data-testid="share-row"][data-share-id="${share.id}"]`);
    await expect(row).toContainText("revoke me");
    await expect(row).toContainText("Never");
    await row.getByTestId("share-revoke").click();
    await expect(row).toHaveCount(0);

    // The open page learns it at once, over its stream, and drops the content.
    await expect(viewer.page.getByTestId("share-gone")).toHaveAttribute("data-reason", "revoked");
    await expect(viewer.page.getByTestId("message")).toHaveCount(0);
    const reload = await viewer.page.reload();
    expect(reload?.status()).toBe(404);
    await expect(viewer.page.getByTestId("share-unavailable")).toBeVisible();
    // A revoked link does not claim to have expired.
    await expect(viewer.page.getByTestId("share-unavailable")).toHaveAttribute("data-reason", "not-found");
    await expect(viewer.page.getByText("Something worth sharing.")).toHaveCount(0);
    const token = share.token;
    expect((await fetch(`${stack.url}/api/shares/public/${token}/snapshot`)).status).toBe(404);
    expect((await fetch(`${stack.url}/api/shares/public/${token}/events`)).status).toBe(404);
    await viewer.ctx.close();
  });

  test("an expired share fails, also on a page that is open", async ({ api, stack, browser }) => {
    stack.model.enqueue({ text: "Short-lived." });
    const s = await api.createSession("expiring");
    await api.prompt(s.id, "hi");
    await api.waitIdle(s.id);
    // Long enough for the page to load first on a loaded machine.
    const share = await createShare(stack, s.id, { expiresIn: 15 });
    expect(share.expiresAt).not.toBeNull();
    const viewer = await freshViewer(browser);
    await viewer.page.goto(share.url);
    await expect(shareText(viewer.page)).toHaveText(["Short-lived."]);
    // The open page ends when the share expires (the server closes its stream).
    await expect(viewer.page.getByTestId("share-gone")).toHaveAttribute("data-reason", "expired", { timeout: 30_000 });
    await expect(viewer.page.getByTestId("message")).toHaveCount(0);
    expect((await fetch(`${stack.url}/api/shares/public/${share.token}/snapshot`)).status).toBe(410);
    expect((await fetch(`${stack.url}/api/shares/public/${share.token}/events`)).status).toBe(410);
    // The page answers 404 (a page of the App Router cannot answer 410), but says the link expired.
    const reload = await viewer.page.reload();
    expect(reload?.status()).toBe(404);
    const unavailable = viewer.page.getByTestId("share-unavailable");
    await expect(unavailable).toBeVisible();
    await expect(unavailable).toHaveAttribute("data-reason", "expired");
    await expect(unavailable).toHaveAttribute("data-status", "410");
    await expect(unavailable.getByRole("heading")).toHaveText("This share link has expired");
    await expect(viewer.page.getByText("Short-lived.")).toHaveCount(0);
    await viewer.ctx.close();

    // A tiny expiry, never opened in time.
    const quick = await createShare(stack, s.id, { expiresIn: 1 });
    await expect
      .poll(async () => (await fetch(`${stack.url}/api/shares/public/${quick.token}/snapshot`)).status, {
        timeout: 15_000,
      })
      .toBe(410);
  });

  test("secrets in a tool output are redacted on the share page, not in the console", async ({
    page,
    api,
    stack,
    browser,
  }) => {
    stack.model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command: SECRETS_COMMAND, description: "Print the config" } }] },
      { text: "That is the config." },
    );
    const { sp } = await api.open(page, "secrets", SessionPage);
    await sp.prompt("print the config");
    const card = sp.toolCards("bash").first();
    await expect(card).toHaveAttribute("data-status", "completed");
    await expect(sp.assistantText().last()).toHaveText("That is the config.");
    await sp.waitStatus("idle");
    const consoleOutput = card.getByTestId("tool-output");
    await expect(consoleOutput).toContainText(FAKE_KEY);
    await expect(consoleOutput).toContainText(KEY_BODY);
    await expect(consoleOutput).toContainText(DB_LINE);

    // The dialog previews what redaction removes.
    await page.getByTestId("share-button").click();
    const dialog = page.getByTestId("share-dialog");
    await expect(dialog.getByTestId("redaction-preview")).not.toHaveAttribute("data-total", "");
    expect(Number(await dialog.getByTestId("redaction-preview").getAttribute("data-total"))).toBeGreaterThanOrEqual(3);
    await expect(dialog.getByTestId("redaction-preview")).toContainText("openai-key");
    await expect(dialog.getByTestId("redaction-preview")).toContainText("private-key");
    await expect(dialog.getByTestId("redaction-example").first()).toContainText("[REDACTED:");
    await expect(dialog).not.toContainText(FAKE_KEY);
    await dialog.getByTestId("share-create").click();
    const url = await dialog.getByTestId("share-url").inputValue();
    await dialog.getByTestId("share-done").click();

    const viewer = await freshViewer(browser);
    await viewer.page.goto(url);
    const shared = viewer.page.locator('[data-testid="tool-card"][data-tool="bash"]').first();
    const out = shared.getByTestId("tool-output");
    await expect(out).toContainText("OPENAI_API_KEY=[REDACTED:openai-key]");
    await expect(out).toContainText("[REDACTED:private-key]");
    await expect(out).toContainText("DATABASE_URL=[REDACTED:connection-string]");
    const pageHtml = await viewer.page.content();
    for (const secret of [FAKE_KEY, KEY_BODY, "postgres://u:p@h"]) expect(pageHtml).not.toContain(secret);
    const snap = await (await fetch(`${url.replace("/share/", "/api/shares/public/")}/snapshot`)).text();
    for (const secret of [FAKE_KEY, KEY_BODY, "postgres://u:p@h"]) expect(snap).not.toContain(secret);
    // Nothing about the console or its backend either.
    expect(snap).not.toContain(stack.workspace);
    expect(snap).not.toContain('"backendId":"local"');
    await viewer.ctx.close();

    // The console's own view is unchanged.
    await page.reload();
    await expect(sp.toolCards("bash").first().getByTestId("tool-output")).toContainText(FAKE_KEY);
  });

  test("a frozen snapshot up to a message shows nothing after it", async ({ api, stack, browser }) => {
    stack.model.enqueue({ text: "First answer." }, { text: "Second answer." });
    const s = await api.createSession("frozen");
    await api.prompt(s.id, "one");
    await api.waitIdle(s.id);
    const first = (await api.snapshot(s.id)).messages.at(-1)!;
    await api.prompt(s.id, "two");
    await api.waitIdle(s.id);
    const share = await createShare(stack, s.id, { live: false, upToMessageId: first.id, includeToolOutput: false });
    const viewer = await freshViewer(browser);
    await viewer.page.goto(share.url);
    await expect(shareText(viewer.page)).toHaveText(["First answer."]);
    await expect(viewer.page.getByTestId("share-connection")).toHaveAttribute("data-state", "snapshot");
    await expect(viewer.page.getByTestId("share-scope")).toContainText("Up to a chosen message");
    await expect(viewer.page.getByTestId("share-scope")).toContainText("Tool outputs hidden");
    stack.model.enqueue({ text: "Third answer." });
    await api.prompt(s.id, "three");
    await api.waitIdle(s.id);
    await viewer.page.reload();
    await expect(shareText(viewer.page)).toHaveText(["First answer."]);
    await viewer.ctx.close();
  });

  test("share routes validate input and answer the error shape", async ({ api, stack, request }) => {
    const s = await api.createSession("share contract");
    const post = (data: Record<string, unknown>) => request.post(`${stack.url}/api/shares`, { data });
    for (const bad of [{ expiresIn: 0 }, { expiresIn: "2w" }, { live: "yes" }, { extra: 1 }]) {
      const r = await post({ backendId: stack.backendId, sessionId: s.id, ...bad });
      expect(r.status(), JSON.stringify(bad)).toBe(400);
      expect((await r.json()).error.code).toBe("bad_request");
    }
    expect((await post({ backendId: "nope", sessionId: s.id })).status()).toBe(404);
    const noMsg = await post({ backendId: stack.backendId, sessionId: s.id, upToMessageId: "msg_nope" });
    expect(noMsg.status()).toBe(400);

    const created = await post({ backendId: stack.backendId, sessionId: s.id, live: false, expiresIn: 3600 });
    expect(created.status()).toBe(201);
    const share = (await created.json()) as CreatedShare;
    expect(share.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(share.url).toBe(`${stack.url}/share/${share.token}`);
    expect(share.state).toBe("active");
    const list = (await (await request.get(`${stack.url}/api/shares?sessionId=${s.id}`)).json()) as {
      items: Record<string, unknown>[];
    };
    expect(list.items.map((x) => x.id)).toEqual([share.id]);
    expect(list.items[0]).not.toHaveProperty("token");
    expect(JSON.stringify(list)).not.toContain(share.token);

    const pub = await request.get(`${stack.url}/api/shares/public/${share.token}/snapshot`);
    expect(pub.status()).toBe(200);
    expect(pub.headers()["cache-control"]).toBe("no-store");
    expect(pub.headers()["x-robots-tag"]).toContain("noindex");
    expect((await request.get(`${stack.url}/api/shares/public/${share.token}/events?after=x`)).status()).toBe(400);

    expect((await request.delete(`${stack.url}/api/shares/shr_unknown`)).status()).toBe(404);
    const revoked = await request.delete(`${stack.url}/api/shares/${share.id}`);
    expect(revoked.status()).toBe(200);
    expect((await revoked.json()).state).toBe("revoked");
    expect((await request.delete(`${stack.url}/api/shares/${share.id}`)).status()).toBe(200);
    const gone = await request.get(`${stack.url}/api/shares/public/${share.token}/snapshot`);
    expect(gone.status()).toBe(404);
    expect((await gone.json()).error.code).toBe("not_found");

    const badPattern = await request.post(`${stack.url}/api/shares/patterns`, {
      data: { label: "x", pattern: "(a+)+", regex: true },
    });
    expect(badPattern.status()).toBe(400);
    expect((await badPattern.json()).error.message).toContain("Nested quantifiers");
    const pattern = await request.post(`${stack.url}/api/shares/patterns`, {
      data: { label: "Project codename", pattern: "bluebird" },
    });
    expect(pattern.status()).toBe(201);
    const p = (await pattern.json()) as { id: string; kind: string };
    expect(p.kind).toBe("project-codename");
    const settings = (await (await request.get(`${stack.url}/api/shares/patterns`)).json()) as {
      builtin: unknown[];
      custom: { id: string }[];
    };
    expect(settings.custom.map((x) => x.id)).toContain(p.id);
    expect(settings.builtin.length).toBeGreaterThan(10);
    expect((await request.delete(`${stack.url}/api/shares/patterns/${p.id}`)).status()).toBe(200);
    expect((await request.delete(`${stack.url}/api/shares/patterns/${p.id}`)).status()).toBe(404);
  });

  test("a pattern added in settings redacts an open share", async ({ page, api, stack, browser }) => {
    stack.model.enqueue({ text: "The internal host is db.bluebird.corp, reachable from the VPN." });
    const s = await api.createSession("custom pattern");
    await api.prompt(s.id, "where is the db?");
    await api.waitIdle(s.id);
    const share = await createShare(stack, s.id);
    await page.goto("/settings/shares");
    await page.getByTestId("pattern-label").fill("Internal hosts");
    await page.getByTestId("pattern-value").fill("[a-z]+\\.bluebird\\.corp");
    await page.getByTestId("pattern-regex").check();
    await page.getByTestId("pattern-add").click();
    const row = page.getByTestId("pattern-row").filter({ hasText: "Internal hosts" });
    await expect(row).toContainText("[REDACTED:internal-hosts]");
    const viewer = await freshViewer(browser);
    await viewer.page.goto(share.url);
    await expect(shareText(viewer.page)).toHaveText([
      "The internal host is [REDACTED:internal-hosts], reachable from the VPN.",
    ]);
    await viewer.ctx.close();
    await row.getByRole("button").click();
    await expect(row).toHaveCount(0);
  });

  // Last in the file: it leaves this client's address rate limited for a minute.
  test("unknown tokens are rate limited per address", async ({ api, stack }) => {
    const s = await api.createSession("rate limit");
    const share = await createShare(stack, s.id);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const bogus = `${"A".repeat(40)}${String(i).padStart(3, "0")}`;
      const r = await fetch(`${stack.url}/api/shares/public/${bogus}/snapshot`);
      statuses.push(r.status);
      if (r.status === 429) {
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
        break;
      }
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((x) => x === 404)).toBe(true);
    // Once blocked, even a real token answers 429: the address learns nothing about which exist.
    expect((await fetch(`${stack.url}/api/shares/public/${share.token}/snapshot`)).status).toBe(429);
    const blockedPage = await (await fetch(`${stack.url}/share/${share.token}`)).text();
    expect(blockedPage).toContain("Too many requests");
  });
});
