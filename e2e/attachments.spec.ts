/**
 * Attachments on a real OpenCode: a pasted PNG reaches the scripted model as an image part, a dropped
 * text file as its text, both shown in the user message (the image as a thumbnail); a file that
 * cannot go is refused with a clear error and nothing is sent.
 */
import type { Page } from "@playwright/test";
import type { ChatContentPart } from "../testkit/scripted-model";
import { expect, test } from "./fixtures/opencode";
import { SessionPage } from "./pages/session-page";

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** Pastes a file into the prompt the way a browser does for a screenshot (a paste event carrying it). */
async function pasteFile(page: Page, name: string, type: string, base64: string) {
  await page.getByTestId("composer-input").evaluate(
    (el, f) => {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], f.name, { type: f.type }));
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    { name, type, base64 },
  );
}

/** Drops a file on the composer (dragover, then drop, as a drag from the desktop). */
async function dropFile(page: Page, name: string, type: string, text: string) {
  await page.getByTestId("composer-box").evaluate(
    (el, f) => {
      const dt = new DataTransfer();
      dt.items.add(new File([f.text], f.name, { type: f.type }));
      el.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
      el.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { name, type, text },
  );
}

const userParts = (parts: ChatContentPart[] | string | null | undefined): ChatContentPart[] =>
  typeof parts === "string" ? [{ type: "text", text: parts }] : (parts ?? []);

test.describe("attachments", () => {
  test("a pasted PNG goes as an image part, a dropped text file as its text", { tag: "@api" }, async ({
    page,
    api,
    stack,
  }) => {
    stack.model.enqueue({ text: "A tiny image." }, { text: "Read the notes." });
    const s = await api.createSession("attachments");
    const seen = stack.model.requests.length;
    const answered = () => stack.model.requests.slice(seen).filter((r) => r.source === "queue");
    const sp = await SessionPage.open(page, stack.backendId, s.id);

    // The composer takes files once it knows the model's attachment support (loaded after the page
    // connects); a paste before that is plain text and attaches nothing.
    await expect(page.getByRole("button", { name: "Attach files" })).toBeVisible();
    await pasteFile(page, "screenshot.png", "image/png", PNG);
    await expect(page.getByTestId("attachment")).toHaveCount(1);
    await expect(page.getByTestId("attachment").locator("img")).toHaveAttribute("src", /^data:image\/png;base64,/);
    await sp.prompt("what is in this image?");
    await expect(sp.assistantText().last()).toHaveText("A tiny image.", { timeout: 30_000 });
    await expect(page.getByTestId("attachment")).toHaveCount(0);
    const first = answered()[0]!;
    const imageRequest = first.messages.filter((m) => m.role === "user").flatMap((m) => userParts(m.content));
    expect(imageRequest.some((p) => p.type === "image_url")).toBe(true);
    expect(imageRequest.some((p) => p.text?.includes("what is in this image?"))).toBe(true);
    // The user message shows the image as a thumbnail.
    await expect(sp.messages("user").last().locator('img[src^="data:image/png"]')).toHaveCount(1);

    await dropFile(page, "notes.md", "text/markdown", "# Notes\n\nThe secret ingredient is cardamom.\n");
    await expect(page.getByTestId("attachment")).toHaveAttribute("data-name", "notes.md");
    await sp.prompt("summarize the notes");
    await expect(sp.assistantText().last()).toHaveText("Read the notes.", { timeout: 30_000 });
    const second = answered()[1]!;
    const lastUser = second.messages.filter((m) => m.role === "user").flatMap((m) => userParts(m.content));
    expect(lastUser.map((p) => p.text ?? "").join("\n")).toContain("cardamom");
    await expect(sp.messages("user").last()).toContainText("notes.md");
  });

  test("a file that cannot go is refused with a clear error, and nothing is sent", async ({ page, api, stack }) => {
    const s = await api.createSession("refused attachment");
    await SessionPage.open(page, stack.backendId, s.id);
    const before = stack.model.requests.length;
    await page.getByTestId("attach-input").setInputFiles({
      name: "archive.zip",
      mimeType: "application/zip",
      buffer: Buffer.from("PK\u0003\u0004"),
    });
    await expect(page.getByTestId("composer-error")).toContainText("archive.zip: application/zip cannot be attached");
    await expect(page.getByTestId("attachment")).toHaveCount(0);
    await expect(page.getByTestId("send")).toBeDisabled();
    // The attach button opens the same picker (a phone's way to attach).
    await expect(page.getByTestId("attach")).toBeVisible();
    expect(stack.model.requests.length).toBe(before);
  });
});
