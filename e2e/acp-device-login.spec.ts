/**
 * Settings → an ACP agent's device-code login (docs/backends/acp.md#authentication), against the
 * fake agent speaking codex-acp 2.6.0's `chat-gpt-device-code` method and flow: the backend is
 * auth-required before New session, *Sign in* shows the page to open and the one-time code, and the
 * backend turns ready when the user has finished there. Screenshots in both themes.
 */
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { fakeLoginConsoleFor } from "../testkit/fake-acp-login";
import { BackendAuthPage } from "./pages/backend-auth";

const login = fakeLoginConsoleFor(test, "Device", "FAKE_DEVICE_AUTH");

for (const theme of ["dark", "light"]) {
  test(`a device-code login shows its link and code, then the backend is ready (${theme})`, async ({
    browser,
  }, testInfo) => {
    const stack = login();
    const settings = await BackendAuthPage.open(await stack.page(browser, theme));
    const row = settings.row("device");
    await expect(row).toHaveAttribute("data-status", "auth-required", { timeout: 30_000 });
    await expect(settings.newSession("device")).toBeDisabled();
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
    fs.writeFileSync(stack.done, "");
    await expect(row).toHaveAttribute("data-status", "ready", { timeout: 30_000 });
    await expect(settings.newSession("device")).toBeEnabled();
    // the next theme's run starts signed out again
    await stack.signOut();
    await settings.page.context().close();
  });
}
