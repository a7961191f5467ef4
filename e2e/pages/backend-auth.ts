import { expect, type Locator, type Page } from "@playwright/test";

/** Settings → a backend's row and its authentication methods (components/settings/auth-methods.tsx). */
export class BackendAuthPage {
  constructor(readonly page: Page) {}

  /** Settings, opened. */
  static async open(page: Page): Promise<BackendAuthPage> {
    const settings = new BackendAuthPage(page);
    await settings.goto();
    return settings;
  }

  async goto() {
    await this.page.goto("/settings");
  }

  /** The backend's New session button (its section in the sidebar). */
  newSession(backendId: string): Locator {
    return this.page
      .locator(`[data-testid="backend-section"][data-backend-id="${backendId}"]`)
      .getByTestId("new-session");
  }

  row(backendId: string): Locator {
    return this.page.locator(`[data-testid="backend-row"][data-backend-id="${backendId}"]`);
  }

  /** The backend's row, once its status is `status` and, if given, its error says `error`. */
  async rowWhen(backendId: string, status: string, error?: string, timeout = 30_000): Promise<Locator> {
    const row = this.row(backendId);
    await expect(row).toHaveAttribute("data-status", status, { timeout });
    if (error !== undefined) await expect(row.getByTestId("backend-error")).toContainText(error);
    return row;
  }

  methods(backendId: string): Locator {
    return this.row(backendId).getByTestId("auth-method");
  }

  method(backendId: string, methodId: string): Locator {
    return this.row(backendId).locator(`[data-testid="auth-method"][data-method-id="${methodId}"]`);
  }

  /** Fills an `env_var` method's variable and saves it (the agent restarts with it). */
  async enter(backendId: string, methodId: string, variable: string, value: string) {
    const m = this.method(backendId, methodId);
    await m.locator(`[data-testid="auth-var-input"][data-var="${variable}"]`).fill(value);
    await m.getByTestId("auth-save").click();
    await expect(m.getByTestId("auth-var-set")).toBeVisible();
  }

  /** A terminal login's *Run in terminal*: the dialog with the login running in xterm.js. */
  async runInTerminal(backendId: string, methodId: string): Promise<Locator> {
    await this.method(backendId, methodId).getByTestId("auth-run-terminal").click();
    const dialog = this.page.getByTestId("login-terminal");
    await expect(dialog.locator(".xterm")).toBeVisible();
    return dialog;
  }

  /** Types into the login terminal (xterm.js takes the keys in its hidden textarea). */
  async typeInTerminal(dialog: Locator, text: string) {
    await dialog.locator(".xterm").click();
    await this.page.keyboard.type(text);
  }
}
