import type { Locator } from "@playwright/test";
import { byTestId } from "./test-ids";

/** The review panel's Git tab (components/review/git-view.tsx). */
export class GitPanel extends byTestId({
  root: "git-panel",
  message: "git-message",
  commitButton: "git-commit",
  pushButton: "git-push",
  mergeButton: "git-merge",
  outcome: "git-outcome",
  branch: "git-branch",
}) {
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
