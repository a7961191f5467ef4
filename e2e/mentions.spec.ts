/**
 * `@` file mentions on a real OpenCode: typing `@` in the composer lists the workspace's files (from
 * OpenCode's own file search), the arrows and Enter pick one, and the prompt carries it as a
 * `file://` part that OpenCode reads itself, so the scripted model's request holds the file's text.
 * At phone width the list fits the screen, a tap picks, Escape closes, and axe finds nothing serious.
 */
import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import type { FileSearchResult } from "../lib/api";
import type { ChatContentPart } from "../testkit/scripted-model";
import { expect, test } from "./fixtures/opencode";
import type { Stack } from "../testkit/opencode-stack";
import { SessionPage } from "./pages/session-page";

const userText = (parts: ChatContentPart[] | string | null | undefined): string =>
  typeof parts === "string" ? parts : (parts ?? []).map((p) => p.text ?? "").join("\n");

/** Writes the files to mention into the stack's workspace, and waits until the backend's search finds them. */
async function workspaceFiles(stack: Stack, request: APIRequestContext, sessionId: string, tag: string) {
  const alpha = `mention-alpha-${tag}.md`;
  const beta = `src/mention-beta-${tag}.ts`;
  const marker = `The mentioned marker is heliotrope-${tag}.`;
  fs.mkdirSync(path.join(stack.workspace, "src"), { recursive: true });
  fs.writeFileSync(path.join(stack.workspace, alpha), `# Alpha\n\n${marker}\n`);
  fs.writeFileSync(path.join(stack.workspace, beta), "export const beta = 2;\n");
  const url = `${stack.url}/api/backends/${stack.backendId}/sessions/${sessionId}/files?q=${encodeURIComponent(`mention-alpha-${tag}`)}`;
  await expect
    .poll(
      async () => {
        const r = await request.get(url);
        return r.ok() ? ((await r.json()) as FileSearchResult).items : [`${r.status()}`];
      },
      { timeout: 30_000, message: "the backend's file search lists the new file" },
    )
    .toContain(alpha);
  return { alpha, beta, marker };
}

async function audit(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page })
    .include('[data-testid="composer-box"]')
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
}

test.describe("@ file mentions", () => {
  test("@ lists workspace files, and the sent prompt carries the chosen one", { tag: "@api" }, async ({
    page,
    api,
    stack,
    request,
  }) => {
    const s = await api.createSession("mentions");
    const tag = Date.now().toString(36);
    const { alpha, beta, marker } = await workspaceFiles(stack, request, s.id, tag);
    stack.model.enqueue({ text: "Read the mentioned file." });
    const seen = stack.model.requests.length;
    const sp = await SessionPage.open(page, stack.backendId, s.id);

    await sp.input.fill("summarize ");
    await sp.input.pressSequentially(`@mention-`);
    const menu = page.getByTestId("mention-menu");
    await expect(menu).toBeVisible();
    await expect(menu).toHaveAttribute("role", "listbox");
    const options = menu.getByRole("option");
    await expect(menu.locator(`[data-path="${alpha}"]`)).toBeVisible();
    await expect(menu.locator(`[data-path="${beta}"]`)).toBeVisible();
    // The textbox names the list and its active option; the arrows move it.
    await expect(sp.input).toHaveAttribute("aria-controls", (await menu.getAttribute("id"))!);
    const activeId = async () => sp.input.getAttribute("aria-activedescendant");
    const first = await options.first().getAttribute("id");
    expect(await activeId()).toBe(first);
    await expect(options.first()).toHaveAttribute("aria-selected", "true");
    await sp.input.press("ArrowDown");
    await expect(options.nth(1)).toHaveAttribute("aria-selected", "true");
    expect(await activeId()).toBe(await options.nth(1).getAttribute("id"));
    await sp.input.press("ArrowUp");
    await expect(options.first()).toHaveAttribute("aria-selected", "true");

    // Narrow to the alpha file and pick it with Enter: the text gets `@path `, the list closes.
    // OpenCode's search is fuzzy (the beta file may still be listed), but the best match comes first.
    await sp.input.pressSequentially(`alpha-${tag}`);
    await expect(options.first()).toHaveAttribute("data-path", alpha);
    await expect(options.first()).toHaveAttribute("aria-selected", "true");
    await sp.input.press("Enter");
    await expect(menu).toHaveCount(0);
    await expect(sp.input).toHaveValue(`summarize @${alpha} `);
    await sp.input.pressSequentially("please");
    await sp.input.press("Enter");

    await expect(sp.assistantText().last()).toHaveText("Read the mentioned file.", { timeout: 60_000 });
    const answered = stack.model.requests.slice(seen).filter((r) => r.source === "queue");
    const sent = answered[0]!.messages.filter((m) => m.role === "user").map((m) => userText(m.content));
    const all = sent.join("\n");
    // The prompt's text keeps the mention. On the V1 contract OpenCode also attached the file's content
    // from its file:// part; on /api the mention travels as text only (Capabilities.mentions.carry).
    expect(all).toContain(`@${alpha}`);
    if (stack.contract === "api") expect(all).not.toContain(marker);
    else expect(all).toContain(marker);
  });

  test("at phone width the list fits, a tap picks, Escape closes, and axe is clean", async ({
    page,
    api,
    stack,
    request,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const s = await api.createSession("mentions on a phone");
    const tag = Date.now().toString(36);
    const { beta } = await workspaceFiles(stack, request, s.id, tag);
    const sp = await SessionPage.open(page, stack.backendId, s.id);

    await sp.input.pressSequentially(`@mention-beta-${tag}`);
    const menu = page.getByTestId("mention-menu");
    await expect(menu.locator(`[data-path="${beta}"]`)).toBeVisible();
    const box = (await menu.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(await audit(page)).toEqual([]);

    await menu.locator(`[data-path="${beta}"]`).click();
    await expect(menu).toHaveCount(0);
    await expect(sp.input).toHaveValue(`@${beta} `);
    await expect(sp.input).toBeFocused();

    // Escape closes the list and keeps the text; typing on opens it again.
    await sp.input.pressSequentially("and @mention-");
    await expect(menu).toBeVisible();
    await sp.input.press("Escape");
    await expect(menu).toHaveCount(0);
    await expect(sp.input).toHaveValue(`@${beta} and @mention-`);
    await sp.input.pressSequentially("b");
    await expect(menu).toBeVisible();
  });
});
