import type { Locator, Page } from "@playwright/test";

/** Page object for the settings page's A2A parts: the "Add an A2A agent" form and a backend's card. */
export class A2aSettings {
  readonly form: Locator;
  readonly url: Locator;
  readonly token: Locator;
  readonly label: Locator;
  readonly fetchCard: Locator;
  readonly add: Locator;
  readonly preview: Locator;
  readonly tokenStatus: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.form = page.getByTestId("add-a2a");
    this.url = this.form.getByTestId("a2a-url");
    this.token = this.form.getByTestId("a2a-token");
    this.label = this.form.getByTestId("a2a-label");
    this.fetchCard = this.form.getByTestId("a2a-fetch-card");
    this.add = this.form.getByTestId("a2a-add");
    this.preview = this.form.getByTestId("a2a-preview");
    this.tokenStatus = this.form.getByTestId("a2a-token-status");
    this.error = this.form.getByTestId("a2a-error");
  }

  row(backendId: string): Locator {
    return this.page.locator(`[data-testid="backend-row"][data-backend-id="${backendId}"]`);
  }
}
