/**
 * Settings → an ACP agent's device-code login (docs/backends/acp.md#authentication), against the
 * fake agent speaking codex-acp 2.6.0's `chat-gpt-device-code` method and flow: the backend is
 * auth-required before New session, *Sign in* shows the page to open and the one-time code, and the
 * backend turns ready when the user has finished there. Screenshots in both themes.
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
const done = () => path.join(dir, "finished");

test.beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sb-device-")));
  const token = `e2e-${randomBytes(24).toString("base64url")}`;
  consoleProcess = await startConsole({
    env: {
      SWITCHBOARD_TOKEN: token,
      SWITCHBOARD_WORKSPACE: dir,
      SWITCHBOARD_BACKENDS: JSON.stringify([
        {
          kind: "acp",
          label: "Device",
          config: { command: [process.execPath, FAKE], env: { FAKE_DEVICE_AUTH: done() }, cwd: dir },
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
  test(`a device-code login shows its link and code, then the backend is ready (${theme})`, async ({
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
    const row = settings.row("device");
    await expect(row).toHaveAttribute("data-status", "auth-required", { timeout: 30_000 });
    await expect(
      page.locator('[data-testid="backend-section"][data-backend-id="device"]').getByTestId("new-session"),
    ).toBeDisabled();
    const method = settings.method("device", "chat-gpt-device-code");
    await method.getByTestId("auth-sign-in-start").click();
    await expect(method.getByTestId("auth-login-message")).toHaveText(
      "Sign in to ChatGPT and enter this code: WXYZ-4821",
    );
    await expect(method.getByTestId("auth-login-link")).toHaveAttribute(
      "href",
      "https://auth.example.test/codex/device",
    );
    await row.screenshot({ path: testInfo.outputPath(`device-login-${theme}.png`) });
    fs.writeFileSync(done(), "");
    await expect(row).toHaveAttribute("data-status", "ready", { timeout: 30_000 });
    await expect(
      page.locator('[data-testid="backend-section"][data-backend-id="device"]').getByTestId("new-session"),
    ).toBeEnabled();
    // the next theme's run starts signed out again
    fs.rmSync(done());
    await page.request.post(`/api/backends/device/restart`, { headers: { origin: consoleProcess.url } });
    await ctx.close();
  });
}
