import type { Locator } from "@playwright/test";
import { byTestId } from "./test-ids";

/** `/search`: the query field, the hits grouped by session. */
export class SearchPage extends byTestId({
  input: "search-input",
  groups: "search-group",
  hits: "search-hit",
  summary: "search-summary",
}) {
  async goto(q?: string) {
    await this.page.goto(q ? `/search?${new URLSearchParams({ q })}` : "/search");
  }

  group(sessionId: string): Locator {
    return this.page.locator(`[data-testid="search-group"][data-session-id="${sessionId}"]`);
  }
}
