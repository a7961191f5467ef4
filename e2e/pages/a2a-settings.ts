import type { Locator } from "@playwright/test";
import { byTestId } from "./test-ids";

/** Page object for the settings page's A2A parts: the "Add an A2A agent" form and a backend's card. */
export class A2aSettings extends byTestId(
  {
    form: "add-a2a",
    url: "a2a-url",
    token: "a2a-token",
    label: "a2a-label",
    fetchCard: "a2a-fetch-card",
    add: "a2a-add",
    preview: "a2a-preview",
    tokenStatus: "a2a-token-status",
    error: "a2a-error",
  },
  "form",
) {
  row(backendId: string): Locator {
    return this.page.locator(`[data-testid="backend-row"][data-backend-id="${backendId}"]`);
  }
}
