/**
 * People (docs/people.md): sign-in with a real OpenID provider (`oidc-provider` over HTTPS with a
 * self-signed certificate the console trusts through NODE_EXTRA_CA_CERTS), through the provider's
 * own login and consent pages in Chromium; each role on the API and on screen; the refusal of
 * someone with no role; the audit log with the operator's prompt and its actor; logout; the token
 * still the admin.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { type ConsoleProcess, startConsole } from "../testkit/console";
import { type OidcProviderServer, startOidcProvider } from "../testkit/oidc-provider";
import { createOpencodeHome, createWorkspace, type OpencodeHome } from "../testkit/opencode-env";
import { freePort } from "../testkit/opencode-server";
import { type ScriptedModel, startScriptedModel } from "../testkit/scripted-model";
import { waitForBackendReady } from "../testkit/launch-console";
import { Interrupts } from "./pages/interrupts";
import type { Snapshot } from "../lib/model";

test.describe.configure({ mode: "serial" });

let op: OidcProviderServer;
let model: ScriptedModel;
let home: OpencodeHome;
let workspace: string;
let sb: ConsoleProcess;
const token = `e2e-${randomBytes(24).toString("base64url")}`;
const bearer = { authorization: `Bearer ${token}` };

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  op = await startOidcProvider({
    redirectUris: [`${url}/api/auth/oidc/callback`],
    postLogoutRedirectUris: [`${url}/login`],
  });
  model = await startScriptedModel();
  // `echo ask…` asks for permission, so someone can answer it (attribution below).
  home = await createOpencodeHome({
    modelBaseUrl: model.url,
    config: { permission: { bash: { "*": "allow", "echo ask*": "ask" } } },
  });
  workspace = await createWorkspace();
  const dataDir = path.join(home.home, "switchboard-data");
  fs.mkdirSync(dataDir, { recursive: true });
  sb = await startConsole({
    port,
    env: {
      ...home.env,
      SWITCHBOARD_WORKSPACE: workspace,
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_TOKEN: token,
      SWITCHBOARD_OIDC_ISSUER: op.issuer,
      SWITCHBOARD_OIDC_CLIENT_ID: op.clientId,
      SWITCHBOARD_OIDC_CLIENT_SECRET: op.clientSecret,
      SWITCHBOARD_OIDC_NAME: "Test IdP",
      SWITCHBOARD_PUBLIC_URL: url,
      NODE_EXTRA_CA_CERTS: op.caFile,
    },
  });
  await waitForBackendReady(sb.url, token);
});

test.afterAll(async () => {
  await sb?.stop();
  await model?.close();
  await home?.cleanup();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  await op?.stop();
});

/** A fresh browser (its own cookies) signed in at the provider's own login and consent pages as `login`. */
async function signIn(
  browser: Browser,
  login: string,
  consent = true,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`${sb.url}/login`);
  await page.getByTestId("login-oidc").click();
  await expect(page).toHaveURL(new RegExp(`^${op.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  if (consent) await page.getByRole("button", { name: "Continue" }).click();
  return { context, page };
}

/** A new session on the local backend: its id and its page's address. */
async function newSession(): Promise<{ id: string; url: string }> {
  const r = await fetch(`${sb.url}/api/backends/local/sessions`, {
    method: "POST",
    headers: { ...bearer, "content-type": "application/json" },
    body: "{}",
  });
  expect(r.status).toBe(201);
  const { id } = (await r.json()) as { id: string };
  return { id, url: `${sb.url}/sessions/local/${id}` };
}

test("each role signs in through the provider; a viewer reads but cannot prompt; an operator prompts; the admin reads it in the audit log", async ({
  browser,
}) => {
  test.setTimeout(420_000);
  const { id: sessionId, url: sessionUrl } = await newSession();

  // The viewer: signed in, named in the sidebar, the prompt box disabled with the reason; the API says 403.
  const { context: viewer, page: vp } = await signIn(browser, "vic");
  await expect(vp.getByTestId("signed-in-name")).toHaveText("Vic Viewer");
  await expect(vp.getByTestId("signed-in-role")).toHaveText("viewer");
  const me = await vp.request.get(`${sb.url}/api/me`);
  expect(await me.json()).toEqual({
    user: { id: "vic", name: "Vic Viewer", email: "vic@example.test" },
    role: "viewer",
    via: "oidc",
  });
  await vp.goto(sessionUrl);
  const input = vp.getByTestId("composer-input");
  await expect(input).toBeDisabled();
  await expect(input).toHaveAttribute("title", /Viewers can read/);
  const refused = await vp.request.post(`${sb.url}/api/backends/local/sessions/${sessionId}/prompt`, {
    data: { parts: [{ type: "text", text: "viewer was here" }] },
  });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error.code).toBe("forbidden");
  // Reads work.
  expect((await vp.request.get(`${sb.url}/api/backends/local/sessions/${sessionId}/snapshot`)).status()).toBe(200);

  // The operator prompts through the composer.
  const { context: operator, page: opPage } = await signIn(browser, "olga");
  await expect(opPage.getByTestId("signed-in-role")).toHaveText("operator");
  await opPage.goto(sessionUrl);
  await expect(opPage.getByTestId("composer-input")).toBeEnabled();
  await opPage.getByTestId("composer-input").fill("hello from olga");
  const sent = opPage.waitForResponse((r) => r.url().endsWith("/prompt") && r.request().method() === "POST");
  await opPage.getByTestId("send").click();
  expect((await sent).status()).toBe(202);
  // An operator cannot change the console's settings.
  const addBackend = await opPage.request.post(`${sb.url}/api/backends`, {
    data: { kind: "opencode", label: "X", config: {} },
  });
  expect(addBackend.status()).toBe(403);

  // The admin reads the audit log: the prompt, with its actor, on the API and on the settings page.
  const { context: admin, page: ap } = await signIn(browser, "ada");
  await expect(ap.getByTestId("signed-in-role")).toHaveText("admin");
  const audit = await ap.request.get(`${sb.url}/api/audit?action=prompt&sessionId=${sessionId}`);
  expect(audit.status()).toBe(200);
  const { items } = (await audit.json()) as { items: { actor: unknown; action: string; detail?: unknown }[] };
  expect(items).toEqual([
    expect.objectContaining({
      actor: { id: "olga", name: "Olga Operator", via: "oidc" },
      action: "prompt",
      backendId: "local",
      sessionId,
      detail: expect.objectContaining({ text: "hello from olga" }),
    }),
  ]);
  const logins = await ap.request.get(`${sb.url}/api/audit?action=login`);
  const actors = ((await logins.json()) as { items: { actor: { id: string } }[] }).items.map((e) => e.actor.id);
  expect(actors).toEqual(expect.arrayContaining(["vic", "olga", "ada"]));
  // The audit log is the admin's only.
  expect((await vp.request.get(`${sb.url}/api/audit`)).status()).toBe(403);
  expect((await opPage.request.get(`${sb.url}/api/audit`)).status()).toBe(403);

  await ap.goto(`${sb.url}/settings`);
  await ap.getByTestId("audit-open").click();
  await ap.getByTestId("audit-filter-action").selectOption("prompt");
  const entry = ap.getByTestId("audit-entry").first();
  await expect(entry.getByTestId("audit-actor")).toHaveText("Olga Operator");
  await expect(entry.getByTestId("audit-action")).toHaveText("prompt");
  for (const theme of ["dark", "light"] as const) {
    await ap.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await ap.screenshot({ path: test.info().outputPath(`audit-log-${theme}.png`), fullPage: true });
  }
  // On the viewer's settings page the backend forms are disabled, with the reason.
  await vp.goto(`${sb.url}/settings`);
  await expect(vp.getByTestId("add-acp-fieldset")).toHaveAttribute("disabled", "");
  await expect(vp.getByTestId("add-acp-fieldset").locator("input, button, select").first()).toBeDisabled();
  await expect(vp.getByTestId("add-acp-fieldset")).toHaveAttribute("title", "Only an admin can do this");
  await expect(vp.getByTestId("audit-section")).toHaveCount(0);
  await vp.goto(sessionUrl);
  await vp.screenshot({ path: test.info().outputPath("viewer-session.png") });

  // Logout ends the viewer's session (the cookie stops working) and goes to the provider's end-session page.
  const cookie = (await viewer.cookies()).find((c) => c.name === "sb_session");
  expect(cookie).toBeTruthy();
  await vp.getByTestId("logout").click();
  await expect(vp).toHaveURL(new RegExp(`^${op.issuer}/session/end`));
  const after = await fetch(`${sb.url}/api/me`, { headers: { cookie: `sb_session=${cookie?.value}` } });
  expect(after.status).toBe(401);
  const logouts = await ap.request.get(`${sb.url}/api/audit?action=logout`);
  expect(((await logouts.json()) as { items: { actor: { id: string } }[] }).items[0]?.actor.id).toBe("vic");
  await Promise.all([viewer.close(), operator.close(), admin.close()]);
});

test("two people on one session: each message says who sent it, the permission who allowed it, the session who created it", async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const { context: operator, page: op } = await signIn(browser, "olga");
  const { context: admin, page: ap } = await signIn(browser, "ada");
  const { id: sessionId, url: sessionUrl } = await newSession();

  await op.goto(sessionUrl);
  await op.getByTestId("composer-input").fill("hello from olga");
  const sent = op.waitForResponse((r) => r.url().endsWith("/prompt") && r.request().method() === "POST");
  await op.getByTestId("send").click();
  expect((await sent).status()).toBe(202);
  await expect(op.locator('[data-testid="message"][data-role="assistant"]')).toHaveCount(1);

  model.enqueue(
    { toolCalls: [{ name: "bash", arguments: { command: "echo ask-ada", description: "Print a word" } }] },
    { text: "It ran." },
  );
  await ap.goto(sessionUrl);
  await ap.getByTestId("composer-input").fill("run the check");
  await ap.getByTestId("send").click();
  const interrupts = new Interrupts(ap);
  await interrupts.allowOnce("echo ask-ada");
  await expect(interrupts.permission()).toHaveCount(0);

  // The snapshot: authors, the answer and the creator, from the console's own record.
  await expect(async () => {
    const snap = (await (
      await fetch(`${sb.url}/api/backends/local/sessions/${sessionId}/snapshot`, { headers: bearer })
    ).json()) as Snapshot;
    expect(snap.session.createdBy).toEqual({ id: "token", name: "Console token" });
    expect(snap.messages.filter((m) => m.role === "user").map((m) => m.author)).toEqual([
      { id: "olga", name: "Olga Operator" },
      { id: "ada", name: "Ada Admin" },
    ]);
    expect(snap.messages.flatMap((m) => m.answered ?? [])).toEqual([
      expect.objectContaining({ decision: "allow_once", answeredBy: { id: "ada", name: "Ada Admin" } }),
    ]);
  }).toPass({ timeout: 30_000 });

  // On screen, live on the operator's page: both senders named, and who allowed the command.
  await expect(op.getByTestId("message-author")).toHaveText(["Olga Operator", "Ada Admin"]);
  const answered = op.getByTestId("answered-interrupt");
  await expect(answered).toHaveAttribute("data-decision", "allow_once");
  await expect(answered).toContainText("Ada Admin");
  await expect(answered).toContainText("allowed once");
  await expect(op.getByTestId("session-created-by")).toHaveText("by Console token");
  // The same after a reload (from the snapshot, not the live events).
  await ap.reload();
  await expect(ap.getByTestId("message-author")).toHaveText(["Olga Operator", "Ada Admin"]);
  await expect(ap.getByTestId("answered-interrupt")).toContainText("Ada Admin");
  for (const theme of ["dark", "light"] as const) {
    await op.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await op.screenshot({ path: test.info().outputPath(`attribution-${theme}.png`) });
  }
  await Promise.all([operator.close(), admin.close()]);
});

test("someone with no Switchboard role is refused on a page that says why, and the refusal is audited", async ({
  browser,
}) => {
  const { context, page } = await signIn(browser, "nora");
  await expect(page.getByTestId("sign-in-failed-reason")).toContainText("Nora Nobody has no Switchboard role");
  expect((await context.cookies()).some((c) => c.name === "sb_session")).toBe(false);
  const r = await fetch(`${sb.url}/api/audit?action=login.refused`, { headers: bearer });
  const { items } = (await r.json()) as { items: { actor: { id: string }; detail?: { reason?: string } }[] };
  expect(items[0]?.actor.id).toBe("nora");
  expect(items[0]?.detail?.reason).toMatch(/no Switchboard role/);
  await context.close();
});

test("a forged state signs nobody in; the token still logs in as the admin", async ({ browser }) => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const res = await page.goto(`${sb.url}/api/auth/oidc/callback?code=forged&state=forged`);
  expect(res?.status()).toBe(400);
  await expect(page.getByTestId("sign-in-failed-reason")).toContainText("expired or was not started here");
  expect((await context.cookies()).some((c) => c.name === "sb_session")).toBe(false);
  await context.close();
  const me = await fetch(`${sb.url}/api/me`, { headers: bearer });
  expect(await me.json()).toEqual({
    user: { id: "token", name: "Console token", email: "" },
    role: "admin",
    via: "token",
  });
});
