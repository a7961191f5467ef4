/**
 * Settings → an ACP agent's terminal login run in the console's terminal (docs/backends/acp.md#authentication),
 * against the fake agent listing a `type: "terminal"` method with `args` as claude-agent-acp 0.101.0
 * does (only to clients declaring `auth.terminal`): the backend is auth-required, *Run in terminal*
 * opens a dialog running the agent's command with the method's args in a pty, the code typed into
 * xterm.js is read by the login, which writes its file and exits 0, and the backend restarts ready.
 * Screenshots of the dialog in both themes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { startConsole, type ConsoleProcess } from "../testkit/console";
import { loginCookie } from "../testkit/launch-console";
import { BackendAuthPage } from "./pages/backend-auth";

const FAKE = path.resolve(import.meta.dirname, "..", "server", "backends", "acp", "testing", "fake-agent.mjs");

let consoleProcess: ConsoleProcess;
let cookie: string;
let dir: string;
const done = () => path.join(dir, "logged-in");

test.beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-term-login-")));
  const token = `e2e-${randomBytes(24).toString("base64url")}`;
  consoleProcess = await startConsole({
    env: {
      SWITCHBOARD_TOKEN: token,
      SWITCHBOARD_WORKSPACE: dir,
      SWITCHBOARD_BACKENDS: JSON.stringify([
        {
          kind: "acp",
          label: "Term",
          config: { command: [process.execPath, FAKE], env: { FAKE_TERMINAL_AUTH: done() }, cwd: dir },
        },
      ]),
    },
  });
  cookie = await loginCookie(consoleProcess.url, token);
});
test.afterAll(async () => {
  await consoleProcess?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

for (const theme of ["dark", "light"]) {
  test(`a terminal login runs in the console's terminal, then the backend is ready (${theme})`, async ({
    browser,
  }, testInfo) => {
    const ctx = await browser.newContext({ baseURL: consoleProcess.url });
    await ctx.addCookies([
      { name: "sb_session", value: cookie, url: consoleProcess.url, httpOnly: true, sameSite: "Strict" },
    ]);
    await ctx.addInitScript((t) => localStorage.setItem("sb-theme", t), theme);
    const page = await ctx.newPage();
    const settings = new BackendAuthPage(page);
    await settings.goto();
    const row = settings.row("term");
    await expect(row).toHaveAttribute("data-status", "auth-required", { timeout: 30_000 });
    const method = settings.method("term", "fake-terminal-login");
    await expect(method).toContainText(`Run in a terminal: node ${FAKE} --login`);
    // xterm.js is not in the Settings page's scripts until a login runs (its helper textarea's class marks its code)
    const scripts = () =>
      page.evaluate(() =>
        performance
          .getEntriesByType("resource")
          .map((e) => e.name)
          .filter((n) => n.endsWith(".js")),
      );
    const hasXterm = async (urls: string[]) => {
      for (const u of urls)
        if ((await (await page.request.get(u)).text()).includes("xterm-helper-textarea")) return true;
      return false;
    };
    const initial = await scripts();
    expect(initial.length).toBeGreaterThan(0);
    expect(await hasXterm(initial)).toBe(false);

    const dialog = await settings.runInTerminal("term", "fake-terminal-login");
    expect(await hasXterm((await scripts()).filter((u) => !initial.includes(u)))).toBe(true);
    await expect(dialog.getByTestId("login-terminal-command")).toHaveText(`node ${FAKE} --login`);
    await expect(dialog.locator(".xterm-rows")).toContainText("Paste the code");
    await settings.typeInTerminal(dialog, "4821");
    await dialog.screenshot({ path: testInfo.outputPath(`terminal-login-${theme}.png`) });
    await page.keyboard.press("Enter");
    await expect(dialog.locator(".xterm-rows")).toContainText("Logged in.");
    await expect(dialog.getByTestId("login-terminal-exit")).toHaveAttribute("data-code", "0");
    // the login ran in the agent's directory, with its environment (FAKE_TERMINAL_AUTH is the backend's own)
    expect(fs.readFileSync(done(), "utf8")).toBe(dir);
    await expect(row).toHaveAttribute("data-status", "ready", { timeout: 30_000 });
    await dialog.getByTestId("login-terminal-close").click();
    await expect(dialog).toHaveCount(0);
    await expect(
      page.locator('[data-testid="backend-section"][data-backend-id="term"]').getByTestId("new-session"),
    ).toBeEnabled();
    // the next theme's run starts signed out again
    fs.rmSync(done());
    await page.request.post(`/api/backends/term/restart`, { headers: { origin: consoleProcess.url } });
    await expect(row).toHaveAttribute("data-status", "auth-required", { timeout: 30_000 });
    await ctx.close();
  });
}
