import { expect, type Locator, type Page } from "@playwright/test";
import { SessionPage } from "./session-page";

/** The two turns the fork and branch tests start from, as [prompt, reply]. */
export const TWO_TURNS = [
  ["first question", "First answer."],
  ["second question", "Second answer."],
] as const;

/** The scripted model's replies for TWO_TURNS, to queue before asking them. */
export const twoTurnReplies = () => TWO_TURNS.map(([, text]) => ({ text }));

/** What `transcript()` reads after the first `count` of TWO_TURNS. */
export const twoTurnsTranscript = (count: 1 | 2 = 2) =>
  TWO_TURNS.slice(0, count).flatMap(([q, a]) => [`user: ${q}`, `assistant: ${a}`]);

/** Where a test makes its sessions: a stack's API helpers (sessions on its main backend) and its scripted model. */
export interface SessionMaker {
  api: { createSession(title: string): Promise<{ id: string }> };
  model: { enqueue(...turns: { text: string }[]): void };
}

/** The session page's tree and review parts: message actions, branch tree, review panel, menu. */
export class ReviewPage extends SessionPage {
  /** A new session titled `title` (on `backendId`, the API's own), opened, after TWO_TURNS have been asked in it. */
  static async afterTwoTurns(
    page: Page,
    { api, model }: SessionMaker,
    backendId: string,
    title: string,
    options?: { timeout?: number },
  ): Promise<{ rp: ReviewPage; session: { id: string } }> {
    model.enqueue(...twoTurnReplies());
    const session = await api.createSession(title);
    const rp = await ReviewPage.open(page, backendId, session.id);
    await rp.askTwoTurns(options);
    return { rp, session };
  }

  readonly panel: Locator;
  readonly revertBanner: Locator;

  constructor(page: Page) {
    super(page);
    this.panel = page.getByTestId("review-panel");
    this.revertBanner = page.getByTestId("revert-banner");
  }

  /** Asks TWO_TURNS, one after the other (their replies queued with `twoTurnReplies()`). */
  async askTwoTurns(options?: { timeout?: number }) {
    for (const [q, a] of TWO_TURNS) await this.ask(q, a, options);
  }

  /** Clicks a message's toolbar action (the toolbar shows on hover). */

  async messageAction(message: Locator, action: "fork-message" | "revert-message") {
    await message.hover();
    await message.getByTestId(action).click();
  }

  async menu(
    action:
      | "action-rename"
      | "action-fork"
      | "action-compact"
      | "action-export-md"
      | "action-export-json"
      | "action-delete",
  ) {
    await this.page.getByTestId("session-menu").click();
    await this.page.getByTestId(action).click();
  }

  /** Waits for navigation to another session and returns its id. */
  async waitForOtherSession(previousId: string): Promise<string> {
    await this.page.waitForURL((u) => /\/sessions\/[^/]+\/ses_/.test(u.pathname) && !u.pathname.endsWith(previousId));
    const id = decodeURIComponent(new URL(this.page.url()).pathname.split("/").pop()!);
    await expect(this.view).toHaveAttribute("data-loaded", "true");
    return id;
  }

  /** The text of each message, in order, as `role: text`. */
  async transcript(): Promise<string[]> {
    const out: string[] = [];
    for (const m of await this.messages().all()) {
      const role = await m.getAttribute("data-role");
      const text =
        role === "user"
          ? await m.getByTestId("user-text").textContent()
          : await m
              .locator('[data-testid="block"][data-kind="text"]')
              .allTextContents()
              .then((t) => t.join(" "));
      out.push(`${role}: ${(text ?? "").trim()}`);
    }
    return out;
  }

  treeNodes(): Locator {
    return this.page.getByTestId("branch-tree").getByTestId("tree-node");
  }

  reviewFile(path: string): Locator {
    return this.panel.locator(`[data-testid="review-file"][data-path="${path}"]`);
  }
}
