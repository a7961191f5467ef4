import { expect, type Locator, type Page } from "@playwright/test";

/** Locators for permission cards, question forms and the "Needs you" inbox. */
export class Interrupts {
  constructor(readonly page: Page) {}
  permission(): Locator {
    return this.page.getByTestId("permission-card");
  }
  /** Waits for a permission card (mentioning `text`, if given) and allows it once; returns the card. */
  async allowOnce(text?: string, timeout = 30_000): Promise<Locator> {
    const card = this.permission();
    await expect(card).toBeVisible({ timeout });
    if (text !== undefined) await expect(card).toContainText(text);
    await card.getByTestId("permission-allow-once").click();
    return card;
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
