import type { Locator, Page } from "@playwright/test";

/** The comparison pages (components/compare/): the start form and the board. */
export class ComparePage {
  readonly board: Locator;
  readonly columns: Locator;

  constructor(private page: Page) {
    this.board = page.getByTestId("compare-board");
    this.columns = page.getByTestId("compare-column");
  }

  /**
   * Fills the start form and starts. `extra` runs before the start (mentions, attachments); the
   * prompt box is `this.prompt`.
   */
  async start(
    opts: { prompt: string; directory: string; testCommand: string; models: string[] },
    extra?: () => Promise<void>,
  ) {
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
    await extra?.();
    await this.page.getByTestId("compare-start-button").click();
    await this.page.waitForURL(/\/compare\/[0-9a-f-]{36}$/);
  }

  get prompt(): Locator {
    return this.page.getByTestId("compare-prompt");
  }

  /** Types `@query` at the end of the task and picks `path` from the list (`shot`: a screenshot of it open). */
  async mention(query: string, path: string, shot?: string) {
    await this.prompt.press("End");
    await this.prompt.pressSequentially(` @${query}`);
    const option = this.page.getByTestId("mention-menu").locator(`[data-path="${path}"]`);
    await option.waitFor();
    if (shot) await this.page.screenshot({ path: shot });
    await option.dispatchEvent("mousedown");
  }

  /** The column's live timeline (its condensed rows). */
  live(i: number): Locator {
    return this.column(i).getByTestId("compare-live");
  }

  column(i: number): Locator {
    return this.columns.nth(i);
  }
}
