/**
 * Settings → an ACP agent's terminal login run in the console's terminal (docs/backends/acp.md#authentication),
 * against the fake agent listing a `type: "terminal"` method with `args` as claude-agent-acp 0.101.0
 * does (only to clients declaring `auth.terminal`): the backend is auth-required, *Run in terminal*
 * opens a dialog running the agent's command with the method's args in a pty, the code typed into
 * xterm.js is read by the login, which writes its file and exits 0, and the backend restarts ready.
 * Screenshots of the dialog in both themes.
 */
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { FAKE_AGENT, fakeLoginConsoleFor } from "../testkit/fake-acp-login";
import { BackendAuthPage } from "./pages/backend-auth";

const login = fakeLoginConsoleFor(test, "Term", "FAKE_TERMINAL_AUTH");

for (const theme of ["dark", "light"]) {
  test(`a terminal login runs in the console's terminal, then the backend is ready (${theme})`, async ({
    browser,
  }, testInfo) => {
    const stack = login();
    const settings = await BackendAuthPage.open(await stack.page(browser, theme));
    const { page } = settings;
    const row = settings.row("term");
    await expect(row).toHaveAttribute("data-status", "auth-required", { timeout: 30_000 });
    const method = settings.method("term", "fake-terminal-login");
    await expect(method).toContainText(`Run in a terminal: node ${FAKE_AGENT} --login`);
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
    await expect(dialog.getByTestId("login-terminal-command")).toHaveText(`node ${FAKE_AGENT} --login`);
    await expect(dialog.locator(".xterm-rows")).toContainText("Paste the code");
    await settings.typeInTerminal(dialog, "4821");
    await dialog.screenshot({ path: testInfo.outputPath(`terminal-login-${theme}.png`) });
    await page.keyboard.press("Enter");
    await expect(dialog.locator(".xterm-rows")).toContainText("Logged in.");
    await expect(dialog.getByTestId("login-terminal-exit")).toHaveAttribute("data-code", "0");
    // the login ran in the agent's directory, with its environment (FAKE_TERMINAL_AUTH is the backend's own)
    expect(fs.readFileSync(stack.done, "utf8")).toBe(stack.dir);
    await expect(row).toHaveAttribute("data-status", "ready", { timeout: 30_000 });
    await dialog.getByTestId("login-terminal-close").click();
    await expect(dialog).toHaveCount(0);
    await expect(settings.newSession("term")).toBeEnabled();
    // the next theme's run starts signed out again
    await stack.signOut();
    await expect(row).toHaveAttribute("data-status", "auth-required", { timeout: 30_000 });
    await page.context().close();
  });
}
