import { expect } from "@playwright/test";
import { byTestId } from "./test-ids";

/**
 * The console's frame at any width: the sidebar (a drawer on a phone, ≤ 768 px), the command palette,
 * the shortcuts help, and the session actions that move into the header's overflow menu on a phone.
 */
export class Shell extends byTestId({
  toggle: "sidebar-toggle",
  sidebarFrame: "sidebar-frame",
  palette: "command-palette",
  help: "shortcuts-help",
}) {
  isPhone(): boolean {
    return (this.page.viewportSize()?.width ?? 1360) <= 768;
  }

  /** Makes the sidebar visible: opens the drawer on a phone, un-collapses it elsewhere. */
  async openSidebar() {
    if ((await this.sidebarFrame.getAttribute("data-open")) !== "true") await this.toggle.first().click();
    await expect(this.sidebarFrame).toHaveAttribute("data-open", "true");
    await expect(this.page.getByTestId("sidebar")).toBeVisible();
  }

  /** Opens a session from the sidebar (the drawer on a phone closes on the pick). */
  async openSession(id: string) {
    await this.openSidebar();
    await this.page.locator(`[data-testid="session-row"][data-session-id="${id}"]`).click();
    await this.page.waitForURL((u) => u.pathname.endsWith(`/${encodeURIComponent(id)}`));
    if (this.isPhone()) await expect(this.sidebarFrame).toHaveAttribute("data-open", "false");
  }

  /** A session action from the header: its own button on wider windows, the overflow menu on a phone. */
  async sessionAction(action: "changes" | "plan" | "tree" | "share") {
    if (this.isPhone()) {
      await this.page.getByTestId("session-menu").click();
      await this.page.getByTestId(`menu-${action}`).click();
      return;
    }
    const button = { changes: "open-changes", plan: "open-plan", tree: "tree-button", share: "share-button" }[action];
    await this.page.getByTestId(button).click();
  }

  async openPalette() {
    // The shortcut is listened for once the page has hydrated: a press before that does nothing, so
    // it is pressed again until the palette shows.
    await expect(async () => {
      if (!(await this.palette.isVisible())) await this.page.keyboard.press("Control+k");
      await expect(this.palette).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await expect(this.page.getByTestId("palette-input")).toBeFocused();
  }

  /** The page scrolls sideways by this many pixels (0 when nothing overflows). */
  async horizontalOverflow(): Promise<number> {
    return this.page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);
  }
}
