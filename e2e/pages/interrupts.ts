import type { Locator, Page } from "@playwright/test";

/** Locators for permission cards, question forms and the "Needs you" inbox. */
export class Interrupts {
  constructor(readonly page: Page) {}
  permission(): Locator {
    return this.page.getByTestId("permission-card");
  }
  question(): Locator {
    return this.page.getByTestId("question-form");
  }
  option(label: string, within?: Locator): Locator {
    return (within ?? this.question()).locator(`[data-testid="question-option"][data-label="${label}"]`);
  }
  inboxItems(): Locator {
    return this.page.getByTestId("inbox-item");
  }
}
