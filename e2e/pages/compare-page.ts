import type { Locator, Page } from "@playwright/test";

/** The comparison pages (components/compare/): the start form and the board. */
export class ComparePage {
  readonly board: Locator;
  readonly columns: Locator;

  constructor(private page: Page) {
    this.board = page.getByTestId("compare-board");
    this.columns = page.getByTestId("compare-column");
  }

  async start(opts: { prompt: string; directory: string; testCommand: string; models: string[] }) {
    await this.page.goto("/compare");
    const rows = this.page.getByTestId("compare-target");
    // The form starts with two targets; more are added; each gets its model.
    await rows.first().waitFor();
    for (let i = 0; i < opts.models.length; i++) {
      if ((await rows.count()) <= i) await this.page.getByTestId("compare-add-target").click();
      await rows
        .nth(i)
        .getByLabel(`Target ${i + 1} model`)
        .fill(opts.models[i]!);
    }
    await this.page.getByTestId("compare-prompt").fill(opts.prompt);
    await this.page.getByTestId("compare-directory").fill(opts.directory);
    await this.page.getByTestId("compare-test-command").fill(opts.testCommand);
    await this.page.getByTestId("compare-start-button").click();
    await this.page.waitForURL(/\/compare\/[0-9a-f-]{36}$/);
  }

  column(i: number): Locator {
    return this.columns.nth(i);
  }
}
