import type { Locator, Page } from "@playwright/test";

/** The review panel's Git tab (components/review/git-view.tsx). */
export class GitPanel {
  readonly root: Locator;
  readonly message: Locator;
  readonly commitButton: Locator;
  readonly pushButton: Locator;
  readonly mergeButton: Locator;
  readonly outcome: Locator;
  readonly branch: Locator;

  constructor(private page: Page) {
    this.root = page.getByTestId("git-panel");
    this.message = page.getByTestId("git-message");
    this.commitButton = page.getByTestId("git-commit");
    this.pushButton = page.getByTestId("git-push");
    this.mergeButton = page.getByTestId("git-merge");
    this.outcome = page.getByTestId("git-outcome");
    this.branch = page.getByTestId("git-branch");
  }

  async open() {
    await this.page.getByTestId("open-git").click();
  }

  file(path: string): Locator {
    return this.root.locator(`[data-testid="git-file"][data-path="${path}"]`);
  }

  async toggle(path: string) {
    await this.file(path).getByRole("checkbox").click();
  }

  async commit(message: string) {
    await this.message.fill(message);
    await this.commitButton.click();
  }
}
