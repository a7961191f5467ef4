import { expect, type Locator, type Page } from "@playwright/test";
import type { ScriptedModel } from "../../testkit/scripted-model";
import { byTestId } from "./test-ids";

/** A page object class for the session page: SessionPage, or one built on it. */
export type SessionView<T extends SessionPage> = new (page: Page) => T;

/** Page object for `/sessions/:backendId/:sessionId`. */
export class SessionPage extends byTestId({
  view: "session-view",
  timeline: "timeline",
  input: "composer-input",
  send: "send",
  stop: "stop",
  connection: "connection",
  status: "session-status",
}) {
  /** A page object of this kind on `/sessions/:backendId/:sessionId`, loaded and connected. */
  static async open<T extends SessionPage>(
    this: new (
      page: Page,
    ) => T,
    page: Page,
    backendId: string,
    sessionId: string,
  ): Promise<T> {
    const view = new this(page);
    await view.goto(backendId, sessionId);
    return view;
  }

  async goto(backendId: string, sessionId: string) {
    await this.page.goto(`/sessions/${backendId}/${sessionId}`);
    await expect(this.view).toHaveAttribute("data-loaded", "true");
    await expect(this.connection).toHaveAttribute("data-state", "connected");
  }

  async prompt(text: string) {
    await this.input.fill(text);
    await this.input.press("Enter");
  }

  /** Sends `text` and waits until the reply has begun: the newest answer shows `seen`. */
  async promptUntil(text: string, seen: string, options?: { timeout?: number }) {
    await this.prompt(text);
    await expect(this.assistantText().last()).toContainText(seen, options);
  }

  /** One whole turn: sends `text`, waits for `reply` as the newest answer, then for the session to be idle. */
  async ask(text: string, reply: string | RegExp, options?: { timeout?: number }) {
    await this.prompt(text);
    await this.expectReply(reply, options);
  }

  /** `ask`, with `reply` queued on the scripted model first: the conversation goes on. */
  async askWithReply(
    model: Pick<ScriptedModel, "enqueue">,
    text: string,
    reply: string,
    options?: { timeout?: number },
  ) {
    model.enqueue({ text: reply });
    await this.ask(text, reply, options);
  }

  /** Waits for `reply` as the newest answer, then for the session to be idle (the turn's end). */
  async expectReply(reply: string | RegExp, options?: { timeout?: number }) {
    await expect(this.assistantText().last()).toHaveText(reply, options);
    await this.waitStatus("idle");
  }

  /** `ask`, where the newest answer need only contain `fragment`. */
  async askContaining(text: string, fragment: string, options?: { timeout?: number }) {
    await this.prompt(text);
    await expect(this.assistantText().last()).toContainText(fragment, options);
    await this.waitStatus("idle");
  }

  /**
   * A turn whose `echo <marker>` bash call waits behind a permission card: checks the card and the
   * waiting tool, allows it once, then waits for the command's output and for `reply`.
   */
  async allowEchoOnce(text: string, marker: string, reply: string) {
    await this.prompt(text);
    const card = this.page.getByTestId("permission-card");
    await expect(card).toBeVisible({ timeout: 30_000 });
    await expect(card).toContainText(`echo ${marker}`);
    const tool = this.toolCards("bash").last();
    await expect(tool).toHaveAttribute("data-status", "awaiting-approval");
    await this.waitStatus("waiting");
    await card.getByTestId("permission-allow-once").click();
    await expect(card).toHaveCount(0);
    await expect(tool).toHaveAttribute("data-status", "completed");
    await expect(tool.getByTestId("tool-output")).toContainText(marker);
    await expect(this.assistantText().last()).toHaveText(reply);
    await this.waitStatus("idle");
  }

  messages(role?: "user" | "assistant"): Locator {
    return role
      ? this.timeline.locator(`[data-testid="message"][data-role="${role}"]`)
      : this.timeline.getByTestId("message");
  }

  assistantText(): Locator {
    return this.messages("assistant").locator('[data-testid="block"][data-kind="text"]');
  }

  /**
   * Waits until the newest reply shows a beginning of `reply` but not all of it (seen while it
   * streams), then all of it.
   */
  async expectStreamed(reply: string, timeout = 30_000) {
    const newest = this.assistantText().last();
    await expect
      .poll(
        async () => {
          const t = (await newest.textContent().catch(() => "")) ?? "";
          return t.length > 0 && t.length < reply.length && reply.startsWith(t.trim().slice(0, 10));
        },
        { timeout, intervals: [50] },
      )
      .toBe(true);
    await expect(newest).toHaveText(reply);
  }

  toolCards(tool?: string): Locator {
    return tool
      ? this.timeline.locator(`[data-testid="tool-card"][data-tool="${tool}"]`)
      : this.timeline.getByTestId("tool-card");
  }

  /**
   * Opens a collapsible block (a tool card, reasoning) by its header and waits until it is open. A
   * click can land on the floating "Latest" button as it fades in over the header, so it is retried
   * against the header's real state rather than trusted once.
   */
  async expand(block: Locator) {
    const header = block.locator("button[aria-expanded]").first();
    await expect(async () => {
      if ((await header.getAttribute("aria-expanded")) !== "true") await header.click({ timeout: 2_000 });
      await expect(header).toHaveAttribute("aria-expanded", "true", { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
  }

  /** Rows the virtualized timeline has in the DOM right now (it renders what is on screen, plus a few). */
  renderedItems(): Locator {
    return this.timeline.getByTestId("timeline-item");
  }

  /** Every element under the timeline: what virtualization keeps bounded. */
  async timelineElementCount(): Promise<number> {
    return this.timeline.evaluate((el) => el.getElementsByTagName("*").length);
  }

  /**
   * Scrolls the timeline to its top until the session's first message is loaded and shown, and
   * returns the largest number of rendered rows seen on the way (older pages load as it goes).
   */
  async scrollToStart(timeout = 240_000): Promise<number> {
    let most = 0;
    await expect(async () => {
      await this.timeline.evaluate((el) => {
        el.scrollTop = 0;
      });
      most = Math.max(most, await this.renderedItems().count());
      await expect(this.page.getByTestId("timeline-start")).toBeVisible({ timeout: 500 });
    }).toPass({ timeout, intervals: [100] });
    return most;
  }

  /**
   * The turns whose "files changed" chip the timeline shows, oldest first. The timeline renders
   * only the rows near the screen, so this scrolls it from top to bottom collecting the chips, and
   * leaves it at the bottom.
   */
  async turnChangeIds(): Promise<string[]> {
    const seen: string[] = [];
    const step = async () =>
      this.timeline.evaluate((el) => {
        const ids = [...el.querySelectorAll('[data-testid="turn-changes"]')].map(
          (c) => c.getAttribute("data-turn-id") ?? "",
        );
        const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 1;
        el.scrollTop += Math.max(100, el.clientHeight - 80);
        return { ids, atEnd };
      });
    await this.timeline.evaluate((el) => {
      el.scrollTop = 0;
    });
    for (let i = 0; i < 500; i++) {
      await this.page.waitForTimeout(50); // let the virtualizer render the rows of the new position
      const { ids, atEnd } = await step();
      for (const id of ids) if (!seen.includes(id)) seen.push(id);
      if (atEnd) break;
    }
    await this.timeline.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    return seen;
  }

  /** Opens find in session (Ctrl+F with focus in the timeline) and searches for `text`. */
  async find(text: string) {
    await this.timeline.focus();
    await this.page.keyboard.press("Control+f");
    await expect(this.page.getByTestId("find-bar")).toBeVisible();
    await this.page.getByTestId("find-input").fill(text);
  }

  /** The timeline row holding the current find hit. */
  currentFindRow(): Locator {
    return this.timeline.locator('[data-testid="timeline-item"][data-find-current]');
  }

  async waitStatus(status: "idle" | "busy" | "waiting" | "retry", timeout = 30_000) {
    await expect(this.status).toHaveAttribute("data-status", status, { timeout });
  }
}
