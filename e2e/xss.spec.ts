/**
 * Untrusted content stays inert (docs/security.md): a corpus of XSS payloads goes through every channel
 * the model and the backend control — assistant text, reasoning, the user's own prompt, bash
 * output, file contents read by a tool, session titles and error messages — with the real OpenCode
 * and the scripted model. In Chromium nothing may execute (no dialog, `window.__xss` never
 * assigned), no element or attribute may come from the content (no script/img/iframe/svg link, no
 * `on*` handler, no javascript:/data: URL), and every payload must be visible as text.
 *
 * The page runs with the CSP bypassed here, so that the renderer itself is what is proven inert —
 * the CSP is a second fence, checked in security.spec.ts.
 */
import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures/opencode";
import { XSS_CORPUS, type XssPayload } from "../testkit/xss-corpus";
import { SessionPage } from "./pages/session-page";

const norm = (s: string) => s.replace(/\s+/g, " ").trim();
const CORPUS_TEXT = XSS_CORPUS.map((p) => p.payload).join("\n\n");

test.use({ bypassCSP: true });

interface Tripwires {
  dialogs: string[];
}

/** Arms the tripwires before any page script runs: a setter on `window.__xss` in every frame, and dialogs. */
async function arm(page: Page): Promise<Tripwires> {
  const t: Tripwires = { dialogs: [] };
  page.on("dialog", (d) => {
    t.dialogs.push(d.message());
    void d.dismiss().catch(() => {});
  });
  await page.addInitScript(() => {
    const hits: string[] = [];
    Object.defineProperty(window, "__xssHits", { value: hits });
    Object.defineProperty(window, "__xss", {
      configurable: false,
      get: () => undefined,
      set: (v: unknown) => void hits.push(String(v)),
    });
  });
  return t;
}

async function expectNothingRan(page: Page, t: Tripwires) {
  const hits: string[] = [];
  for (const frame of page.frames()) {
    hits.push(
      ...(await frame.evaluate(() => (window as unknown as { __xssHits?: string[] }).__xssHits ?? []).catch(() => [])),
    );
  }
  expect(hits, "window.__xss was assigned").toEqual([]);
  expect(t.dialogs, "a dialog opened").toEqual([]);
  expect(page.frames().length, "a frame appeared").toBe(1);
}

/** Elements and attributes that only injected content could have produced inside `selectors`. */
async function injectedMarkup(page: Page, selectors: string[]): Promise<string[]> {
  return page.evaluate((sels) => {
    const DANGER = [
      "script",
      "iframe",
      "frame",
      "frameset",
      "object",
      "embed",
      "img",
      "video",
      "audio",
      "source",
      "picture",
      "form",
      "base",
      "meta",
      "link",
      "style",
      "math",
      "noscript",
      "template",
      "details",
      "textarea",
      "select",
      "input:not([type=checkbox])",
      "svg a",
      "svg animate",
      "svg set",
      "svg foreignObject",
      "svg text",
      "svg use",
    ].join(",");
    const URL_ATTR = /^(href|src|action|formaction|xlink:href|data|srcdoc|background|poster)$/i;
    const out: string[] = [];
    for (const sel of sels) {
      for (const root of Array.from(document.querySelectorAll(sel))) {
        for (const el of Array.from(root.querySelectorAll(DANGER))) out.push(`element: ${el.outerHTML.slice(0, 160)}`);
        for (const el of [root, ...Array.from(root.querySelectorAll("*"))]) {
          for (const a of Array.from(el.attributes)) {
            if (/^on/i.test(a.name))
              out.push(`handler: <${el.tagName.toLowerCase()} ${a.name}="${a.value.slice(0, 80)}">`);
            if (a.name === "srcdoc") out.push(`srcdoc on ${el.tagName}`);
            if (URL_ATTR.test(a.name) && !/^(https?:|mailto:|\/(?!\/)|#)/i.test(a.value.trim()))
              out.push(`url: <${el.tagName.toLowerCase()} ${a.name}="${a.value.slice(0, 80)}">`);
            if (a.name === "style" && /javascript:|expression\(|url\(/i.test(a.value))
              out.push(`style: ${a.value.slice(0, 80)}`);
          }
        }
      }
    }
    return out;
  }, selectors);
}

/** Payloads whose visible form is missing from `text`. */
function missing(text: string, corpus: XssPayload[], markdown: boolean): string[] {
  const shown = norm(text);
  return corpus
    .filter((p) => !shown.includes(norm(markdown ? (p.md ?? p.payload) : p.payload)))
    .map((p) => `${p.id}: ${p.payload}`);
}

test.describe("untrusted content stays inert", () => {
  test("the tripwires catch a real injection (the detectors are not vacuous)", async ({ page, api, stack }) => {
    const t = await arm(page);
    const s = await api.createSession("xss detector self-test");
    await SessionPage.open(page, stack.backendId, s.id);
    await page.evaluate(() => {
      const div = document.createElement("div");
      div.innerHTML = `<img src="data:," onerror="window.__xss='self-test'"><a href="javascript:void 0">x</a>`;
      document.querySelector('[data-testid="timeline"]')!.appendChild(div);
    });
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { __xssHits: string[] }).__xssHits.length))
      .toBe(1);
    const found = await injectedMarkup(page, ['[data-testid="timeline"]']);
    expect(found.some((f) => f.startsWith("element: <img"))).toBe(true);
    expect(found.some((f) => f.startsWith("handler:"))).toBe(true);
    expect(found.some((f) => f.startsWith("url: <a"))).toBe(true);
    expect(missing("<script>window.__xss=1</script>", XSS_CORPUS.slice(0, 2), false)).toHaveLength(1);
    expect(t.dialogs).toEqual([]);
  });

  test("assistant text, reasoning, prompt, bash output, file contents and errors", async ({ page, api, stack }) => {
    test.setTimeout(120_000);
    const t = await arm(page);
    const file = path.join(stack.workspace, "xss-corpus.txt");
    fs.writeFileSync(file, `${XSS_CORPUS.map((p) => p.payload).join("\n")}\n`);
    const s = await api.createSession("xss channels");
    const sp = await SessionPage.open(page, stack.backendId, s.id);

    // 1. The user's prompt, and a reply whose reasoning and text are the corpus, streamed in pieces
    //    (so half-received tags pass through the incremental markdown renderer too).
    stack.model.enqueue({ reasoning: CORPUS_TEXT, text: CORPUS_TEXT, chunks: 40, delayMs: 5 });
    await sp.prompt(CORPUS_TEXT);
    await expect(sp.messages("assistant")).toHaveCount(1);
    await sp.waitStatus("idle");
    const assistant = sp.messages("assistant").first();
    await expect(assistant.locator('[data-testid="block"][data-kind="text"]')).toContainText("window.__xss=47");
    expect(missing((await sp.messages("user").first().textContent()) ?? "", XSS_CORPUS, false), "prompt").toEqual([]);
    expect(
      missing(
        (await assistant.locator('[data-testid="block"][data-kind="text"]').textContent()) ?? "",
        XSS_CORPUS,
        true,
      ),
      "assistant text",
    ).toEqual([]);
    const reasoning = assistant.locator('[data-testid="block"][data-kind="reasoning"]');
    await sp.expand(reasoning);
    await expect(reasoning).toContainText("window.__xss=47");
    expect(missing((await reasoning.textContent()) ?? "", XSS_CORPUS, true), "reasoning").toEqual([]);

    // 2. Tool output: bash prints the corpus; the read tool returns it as file contents.
    stack.model.enqueue(
      {
        toolCalls: [
          { name: "bash", arguments: { command: `cat ${file}`, description: "Print the corpus" } },
          { name: "read", arguments: { filePath: file } },
        ],
      },
      { text: "Both tools ran." },
    );
    await sp.prompt("run the tools");
    await expect(sp.assistantText().last()).toHaveText("Both tools ran.", { timeout: 30_000 });
    const bash = sp.toolCards("bash").first();
    await expect(bash).toHaveAttribute("data-status", "completed");
    expect(
      missing((await bash.getByTestId("tool-output").textContent()) ?? "", XSS_CORPUS, false),
      "bash output",
    ).toEqual([]);
    const read = sp.toolCards("read").first();
    await expect(read).toHaveAttribute("data-status", "completed");
    await sp.expand(read);
    const showAll = read.getByRole("button", { name: /Show all/ });
    if (await showAll.count()) await showAll.click();
    await expect(read).toContainText("window.__xss=47");
    expect(missing((await read.textContent()) ?? "", XSS_CORPUS, false), "file contents").toEqual([]);

    // 3. An error message from the provider (a scripted 400) made of the corpus.
    stack.model.enqueue({
      error: { status: 400, message: XSS_CORPUS.map((p) => p.payload).join("\n"), type: "invalid_request_error" },
    });
    await sp.prompt("fail with the corpus");
    const err = sp.timeline.getByTestId("message-error").last();
    await expect(err).toContainText("window.__xss=47", { timeout: 30_000 });
    expect(missing((await err.textContent()) ?? "", XSS_CORPUS, false), "error message").toEqual([]);
    await sp.waitStatus("idle");

    // Nothing ran, and nothing from the content became markup.
    await page.mouse.move(400, 400);
    expect(await injectedMarkup(page, ['[data-testid="timeline"]', '[data-testid="session-title"]'])).toEqual([]);
    await expectNothingRan(page, t);
  });

  test("session titles", async ({ page, api, stack, request }) => {
    const t = await arm(page);
    const created = (await Promise.all(XSS_CORPUS.map((p) => api.createSession(p.payload)))).map((x) => x.id);
    try {
      await page.goto("/");
      const rows = page.getByTestId("session-row");
      await expect(rows.filter({ hasText: "window.__xss=47" })).toHaveCount(1);
      const sidebar = (await page.getByTestId("sidebar").textContent()) ?? "";
      expect(missing(sidebar, XSS_CORPUS, false), "sidebar titles").toEqual([]);
      // The session header of a few of them (document.title is a text-only sink).
      const sp = new SessionPage(page);
      for (const i of [0, 5, 20, 33]) {
        await sp.goto(stack.backendId, created[i]!);
        await expect(page.getByTestId("session-title")).toHaveText(XSS_CORPUS[i]!.payload);
      }
      expect(
        await injectedMarkup(page, [
          '[data-testid="sidebar"] nav',
          '[data-testid="session-title"]',
          '[data-testid="timeline"]',
        ]),
      ).toEqual([]);
      await expectNothingRan(page, t);
    } finally {
      await Promise.all(created.map((id) => request.delete(api.base(id))));
    }
  });
});
