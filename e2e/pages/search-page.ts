import type { Locator, Page } from "@playwright/test";

/** `/search`: the query field, the hits grouped by session. */
export class SearchPage {
  readonly input: Locator;
  readonly groups: Locator;
  readonly hits: Locator;
  readonly summary: Locator;

  constructor(readonly page: Page) {
    this.input = page.getByTestId("search-input");
    this.groups = page.getByTestId("search-group");
    this.hits = page.getByTestId("search-hit");
    this.summary = page.getByTestId("search-summary");
  }

  async goto(q?: string) {
    await this.page.goto(q ? `/search?${new URLSearchParams({ q })}` : "/search");
  }

  group(sessionId: string): Locator {
    return this.page.locator(`[data-testid="search-group"][data-session-id="${sessionId}"]`);
  }
}
