/**
 * The browser half of `npm run bench`: Switchboard (the built console) and OpenCode's own web app
 * (served by the same `opencode serve` at its root), on the same seeded long session, in Debian's
 * Chromium. Each UI gets a fresh browser; the figures are read the same way for both.
 */
import { gzipSync } from "node:zlib";
import { chromium, type Browser, type CDPSession, type Page } from "@playwright/test";
import { FIRST_WORD, LAST_WORD, streamingTurn, type LongStack } from "./long-stack";

export interface UiFigures {
  /** Navigation start → the newest message's marker word visible on screen (the UI's first visit since its server started). */
  newestVisibleMs: number | null;
  /** The same on a second visit: the server has served the session once, the browser profile is fresh. */
  newestVisibleWarmMs: number | null;
  heapMb: number;
  /** The page's workers' JS heap at the same moment (Switchboard's highlight worker, while it runs). */
  workerHeapMb: number;
  domElements: number;
  /** Frame times while a reply streams at 50 deltas/s into the open session. */
  frameP95Ms: number;
  frameWorstMs: number;
  frames: number;
  /** Scroll from the newest to the first message (older pages loaded as needed). */
  scrollBackMs: number | null;
  /** The first message was not reached within SCROLL_BACK_TIMEOUT_MS: the time is at least that. */
  scrollBackTimedOut: boolean;
  heapAtTopMb: number;
  domAtTop: number;
  /**
   * JavaScript of the session page in its first seconds (load + 2 s): bytes as transferred, and
   * gzip-compressed size of the same scripts — everything, including chunks loaded on demand.
   */
  jsTransferredKb: number;
  jsGzipKb: number;
  /**
   * Initial JavaScript (docs/design.md): the scripts the page's HTML names — its script tags, preloads and
   * (for Next) the chunks its server-rendered payload references, which hydration needs. Chunks
   * that scripts import later on demand (the highlighter and its grammars, the input form; lazy
   * routes in OpenCode's app) are not initial. Gzip KB.
   */
  jsInitialGzipKb: number;
  /** Each script of the page: path, gzip size (KB) and whether it is initial, largest first. */
  scripts: Array<{ path: string; gzipKb: number; initial: boolean }>;
  notes: string[];
}

const VIEWPORT = { width: 1280, height: 800 };
const STREAM_DELTAS = 400;
const STREAM_RATE = 50;
export const SCROLL_BACK_TIMEOUT_MS = 150_000;

async function heapMb(cdp: CDPSession): Promise<number> {
  await cdp.send("HeapProfiler.collectGarbage");
  const { metrics } = await cdp.send("Performance.getMetrics");
  const used = metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0;
  return used / 1024 / 1024;
}

/**
 * When `word` is first visible on screen (the page's `performance.now()`, from navigation start),
 * polled every 50 ms through the page's CDP session. Not Playwright's `waitForFunction`: that injects
 * Playwright's own selector engine into the page (~0.5 MB of heap once compiled, measured), which the
 * heap read after it counted in both UIs' figures.
 */
async function visibleAt(cdp: CDPSession, word: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const expression = `window.__visibleText?.(${JSON.stringify(word)}) ? performance.now() : 0`;
  for (;;) {
    // Fails while the document is being replaced (the navigation commits): polled again.
    const r = await cdp.send("Runtime.evaluate", { expression, returnByValue: true }).catch(() => null);
    const at: unknown = r?.result.value;
    if (typeof at === "number" && at > 0) return at;
    if (Date.now() > deadline) throw new Error(`"${word}" was not visible within ${timeoutMs / 1000} s`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/**
 * The JS heap of every worker in this browser (each UI has a browser of its own), after a GC: the
 * page's heap alone would not show what a worker holds. Through the browser's CDP session, since
 * Playwright has none for workers.
 */
async function workerHeapMb(browser: Browser): Promise<number> {
  const cdp = await browser.newBrowserCDPSession();
  let used = 0;
  try {
    const { targetInfos } = await cdp.send("Target.getTargets");
    for (const t of targetInfos.filter((x) => x.type === "worker" || x.type === "shared_worker")) {
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId: t.targetId, flatten: false });
      const answer = new Promise<number>((resolve) => {
        cdp.on("Target.receivedMessageFromTarget", (e) => {
          if (e.sessionId !== sessionId) return;
          const msg = JSON.parse(e.message) as { id?: number; result?: { usedSize?: number } };
          if (msg.id === 2) resolve(msg.result?.usedSize ?? 0);
        });
      });
      for (const [id, method] of [
        [1, "HeapProfiler.collectGarbage"],
        [2, "Runtime.getHeapUsage"],
      ] as const)
        await cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method }) });
      used += await Promise.race([answer, new Promise<number>((r) => setTimeout(() => r(0), 5000))]);
      await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
    }
  } finally {
    await cdp.detach().catch(() => undefined);
  }
  return used / 1024 / 1024;
}

const domElements = (page: Page) => page.evaluate(() => document.getElementsByTagName("*").length);

/**
 * Where Switchboard's elements are after load (issue 46): per block kind (blocks, elements in them,
 * per block), the per-message toolbars, the timeline's rows, the rest of the page; then the toolbar
 * of the newest message while hovered (its buttons are rendered only then).
 */
async function domBreakdown(page: Page): Promise<string> {
  // A string, not a function: tsx would wrap a function in helpers the page lacks (see PROBES).
  const parts = (await page.evaluate(`(() => {
    const size = (el) => el.getElementsByTagName("*").length + 1;
    const kinds = new Map();
    for (const b of document.querySelectorAll('[data-testid="timeline"] [data-testid="block"]')) {
      const kind = b.getAttribute("data-kind") || "?";
      const k = kinds.get(kind) || { n: 0, els: 0 };
      k.n++;
      k.els += size(b) - 1; // a block is a display: contents wrapper around its view
      kinds.set(kind, k);
    }
    const bars = [...document.querySelectorAll('[data-testid="timeline"] [data-testid="message-actions"]')];
    const timeline = document.querySelector('[data-testid="timeline"]');
    const rows = document.querySelectorAll('[data-testid="timeline-item"]').length;
    const all = document.getElementsByTagName("*").length;
    const tl = timeline ? size(timeline) : 0;
    const byKind = [...kinds].map(([k, v]) => k + " " + v.n + " (" + v.els + ", " + (v.els / v.n).toFixed(1) + " each)").join(", ");
    const barEls = bars.reduce((a, b) => a + size(b), 0);
    return all + " elements: timeline " + tl + " in " + rows + " rows — blocks by kind: " + byKind + "; message toolbars " + bars.length + " (" + barEls + "); outside the timeline " + (all - tl);
  })()`)) as string;
  const newest = page.locator('[data-testid="timeline-item"] [data-testid="message"]').last();
  await newest.hover();
  await page.waitForTimeout(300);
  const hovered = await newest
    .locator('[data-testid="message-actions"]')
    .evaluate("(el) => el.getElementsByTagName('*').length + 1")
    .catch(() => null);
  await page.mouse.move(0, 0);
  return `${parts}; the newest message's toolbar while hovered: ${hovered ?? "none"} elements`;
}

/**
 * In-page probes: a finder for a visible text node holding a word, its scroll container, and a
 * frame recorder. A string, not a function: tsx would wrap a function in helpers the page lacks.
 */
export const PROBES = `
(() => {
  // The word's own box (a Range over its characters, not its paragraph's, which may run far off
  // screen), and the topmost element at its centre must hold it: on screen for real, not covered.
  const visibleText = (word) => {
    if (!document.body) return null; // polled from navigation start, before the body exists
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const at = n.nodeValue ? n.nodeValue.indexOf(word) : -1;
      if (at < 0) continue;
      const el = n.parentElement;
      if (!el) continue;
      const range = document.createRange();
      range.setStart(n, at);
      range.setEnd(n, at + word.length);
      for (const r of range.getClientRects()) {
        if (r.height <= 0 || r.width <= 0 || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
        const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
        const y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
        const hit = document.elementFromPoint(x, y);
        if (hit && (el === hit || el.contains(hit) || hit.contains(el))) return el;
      }
    }
    return null;
  };
  const scrollable = (el) => /(auto|scroll)/.test(getComputedStyle(el).overflowY) && el.scrollHeight > el.clientHeight + 10;
  const scroller = (from) => {
    for (let el = from; el; el = el.parentElement) if (scrollable(el)) return el;
    // No marker on screen: the tallest scrollable element is the conversation.
    let best = null;
    for (const el of document.querySelectorAll("*")) if (scrollable(el) && (!best || el.scrollHeight > best.scrollHeight)) best = el;
    return best;
  };
  window.__visibleText = visibleText;
  window.__scroller = scroller;
  window.__frames = [];
  window.__recordFrames = (on) => {
    window.__recording = on;
    if (!on) return;
    window.__frames = [];
    let last = performance.now();
    const tick = (t) => {
      if (!window.__recording) return;
      window.__frames.push(t - last);
      last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  };
})();
`;

async function installProbes(page: Page) {
  await page.addInitScript({ content: PROBES });
}

function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
}

/** Waits until the turn started by a prompt has run: busy first, then idle again. */
export async function waitTurn(stack: LongStack, sessionId: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  let seenBusy = false;
  const startedBy = Date.now() + 10_000; // a turn that never shows busy within 10 s is over or lost
  for (;;) {
    const r = await stack.api(`/api/backends/${stack.backendId}/sessions/${sessionId}`);
    const s = (await r.json()) as { status?: string };
    if (s.status !== "idle") seenBusy = true;
    else if (seenBusy || Date.now() > startedBy) return;
    if (Date.now() > deadline) throw new Error("the streamed reply did not finish");
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function measureUi(
  browser: Browser,
  stack: LongStack,
  ui: "switchboard" | "opencode",
  turn: number,
): Promise<UiFigures> {
  const notes: string[] = [];
  const newContext = async () => {
    const ctx = await browser.newContext({ viewport: VIEWPORT, colorScheme: "dark" });
    if (ui === "switchboard")
      await ctx.addCookies([{ name: "sb_session", value: await stack.loginCookie(), url: stack.console.url }]);
    return ctx;
  };
  const context = await newContext();
  const page = await context.newPage();
  await installProbes(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const scripts: Promise<{ path: string; transferred: number; gzip: number }>[] = [];
  page.on("response", (res) => {
    if (res.request().resourceType() !== "script") return;
    scripts.push(
      (async () => {
        const sizes = await res
          .request()
          .sizes()
          .catch(() => ({ responseBodySize: 0 }));
        const body = await res.body().catch(() => Buffer.alloc(0));
        return {
          path: new URL(res.url()).pathname,
          transferred: sizes.responseBodySize || body.length,
          gzip: gzipSync(body).length,
        };
      })(),
    );
  });

  const url =
    ui === "switchboard"
      ? `${stack.console.url}/sessions/${stack.backendId}/${stack.sessionId}`
      : `${stack.opencode.url}/server/${Buffer.from(stack.opencode.url).toString("base64url")}/session/${stack.sessionId}`;
  const nav = await page.goto(url, { waitUntil: "commit" });
  const newestVisible = (c: CDPSession) => visibleAt(c, LAST_WORD);
  let newestVisibleMs: number | null = null;
  try {
    newestVisibleMs = await newestVisible(cdp);
  } catch (err) {
    notes.push(
      `the newest message never became visible within 60 s (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`,
    );
  }
  await page.waitForTimeout(2000); // let late work settle before reading memory
  const heap = await heapMb(cdp);
  const workerHeap = await workerHeapMb(browser);
  const dom = await domElements(page);
  if (ui === "switchboard") notes.push(`DOM after load: ${await domBreakdown(page)}`);
  // Printed as they are read: a later phase failing on a loaded machine does not lose them.
  console.log(
    `${ui} after load: heap ${heap.toFixed(2)} MB (its workers ${workerHeap.toFixed(2)} MB), ${dom} DOM elements${ui === "switchboard" ? ` (${notes.at(-1)})` : ""}`,
  );

  // A second visit in a fresh browser profile: what a reader sees once the server has served the
  // session (its caches and code warm), without the browser's cache.
  let newestVisibleWarmMs: number | null = null;
  {
    const ctx = await newContext();
    const second = await ctx.newPage();
    await installProbes(second);
    try {
      const secondCdp = await ctx.newCDPSession(second);
      await second.goto(url, { waitUntil: "commit" });
      newestVisibleWarmMs = await newestVisible(secondCdp);
    } catch (err) {
      notes.push(
        `second visit: the newest message never became visible (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`,
      );
    }
    await ctx.close();
  }
  const js = await Promise.all(scripts);
  const jsTransferredKb = js.reduce((a, b) => a + b.transferred, 0) / 1024;
  const jsGzipKb = js.reduce((a, b) => a + b.gzip, 0) / 1024;
  // A script is initial when the document names it (by file name: Next's payload writes chunk paths
  // without the /_next/ prefix, Vite's index.html writes /assets/…).
  const html = (await nav?.text().catch(() => "")) ?? "";
  const initial = (path: string) => {
    const file = path.slice(path.lastIndexOf("/") + 1);
    return file.length > 0 && html.includes(file);
  };
  if (!html) notes.push("the page's HTML could not be read: no script counted as initial");
  const jsInitialGzipKb = js.filter((x) => initial(x.path)).reduce((a, b) => a + b.gzip, 0) / 1024;

  // Streaming: the same scripted reply at 50 deltas/s, prompted through the console for both UIs.
  const marker = `bench-stream-${ui}-${turn}`;
  stack.model.enqueue(streamingTurn(STREAM_DELTAS, STREAM_RATE, marker));
  await page.evaluate("window.__recordFrames(true)");
  await stack.prompt(stack.sessionId, `Stream a reply please (${marker})`);
  await waitTurn(stack, stack.sessionId);
  await page.waitForTimeout(300);
  const frames = (await page.evaluate("window.__recordFrames(false), window.__frames.slice(1)")) as number[];

  // Scroll back to the first message the way a reader does: the mouse wheel over the conversation,
  // 3,000 px a notch, two frames between notches, until the first message is on screen. (Setting
  // scrollTop is not the same: OpenCode's app takes a programmatic scroll for its own and snaps back
  // to the bottom.) Each UI loads older history its own way.
  const t0 = Date.now();
  let scrollBackMs: number | null = null;
  let scrollBackTimedOut = false;
  const first = JSON.stringify(FIRST_WORD);
  const last = JSON.stringify(LAST_WORD);
  const reached = await (async () => {
    try {
      const box = (await page.evaluate(
        `(() => { const sc = window.__scroller(window.__visibleText(${last}) || document.querySelector('[data-testid="timeline"]')); if (!sc) return null; const r = sc.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`,
      )) as { x: number; y: number } | null;
      if (!box) {
        notes.push("scroll back: no scrollable conversation found");
        return -1;
      }
      await page.mouse.move(box.x, box.y);
      const start = performance.now();
      while (performance.now() - start < SCROLL_BACK_TIMEOUT_MS) {
        if (await page.evaluate(`!!window.__visibleText(${first})`)) return performance.now() - start;
        await page.mouse.wheel(0, -3000);
        await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))))");
      }
      return -1;
    } catch (err) {
      notes.push(`scroll back failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
      return -1;
    }
  })();
  if (reached >= 0) scrollBackMs = reached;
  else scrollBackTimedOut = true;
  if (reached < 0)
    notes.push(
      `the first message was not reached within ${SCROLL_BACK_TIMEOUT_MS / 1000} s (${Math.round((Date.now() - t0) / 1000)} s spent)`,
    );
  await page.waitForTimeout(500);
  const heapAtTop = await heapMb(cdp);
  const domAtTop = await domElements(page);
  await context.close();
  return {
    newestVisibleMs,
    newestVisibleWarmMs,
    heapMb: heap,
    workerHeapMb: workerHeap,
    domElements: dom,
    frameP95Ms: percentile(frames, 0.95),
    frameWorstMs: frames.length ? Math.max(...frames) : 0,
    frames: frames.length,
    scrollBackMs,
    scrollBackTimedOut,
    heapAtTopMb: heapAtTop,
    domAtTop,
    jsTransferredKb,
    jsGzipKb,
    jsInitialGzipKb,
    scripts: js
      .map((x) => ({ path: x.path, gzipKb: Math.round(x.gzip / 102.4) / 10, initial: initial(x.path) }))
      .sort((a, b) => b.gzipKb - a.gzipKb),
    notes,
  };
}

/**
 * Screenshots of both UIs holding the long session (docs/performance.md), with BENCH_SCREENSHOTS
 * set to a directory: Switchboard dark and light, find in session on the first message, and
 * OpenCode's web app.
 */
async function screenshots(browser: Browser, stack: LongStack, dir: string) {
  const cookie = await stack.loginCookie();
  for (const scheme of ["dark", "light"] as const) {
    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: scheme });
    await context.addCookies([{ name: "sb_session", value: cookie, url: stack.console.url }]);
    const page = await context.newPage();
    await page.goto(`${stack.console.url}/sessions/${stack.backendId}/${stack.sessionId}`);
    await page.getByText(LAST_WORD).last().waitFor();
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${dir}/long-session-switchboard-${scheme}.png` });
    if (scheme === "dark") {
      await page.getByTestId("timeline").focus();
      await page.keyboard.press("Control+f");
      await page.getByTestId("find-input").fill(FIRST_WORD);
      await page.getByTestId("find-status").filter({ hasText: "1 of 1" }).waitFor({ timeout: 120_000 });
      await page.waitForTimeout(800);
      await page.screenshot({ path: `${dir}/long-session-find-${scheme}.png` });
    }
    await context.close();
  }
  const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: "light" });
  const page = await context.newPage();
  await page.goto(
    `${stack.opencode.url}/server/${Buffer.from(stack.opencode.url).toString("base64url")}/session/${stack.sessionId}`,
  );
  await page.getByText(LAST_WORD).last().waitFor();
  await page.waitForTimeout(1500);
  await page.screenshot({ path: `${dir}/long-session-opencode-web.png` });
  await context.close();
}

export async function browserBench(stack: LongStack): Promise<{ switchboard: UiFigures; opencode: UiFigures }> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--enable-precise-memory-info"],
  });
  try {
    const switchboard = await measureUi(browser, stack, "switchboard", 1);
    const opencode = await measureUi(browser, stack, "opencode", 2);
    const dir = process.env.BENCH_SCREENSHOTS;
    if (dir) {
      await screenshots(browser, stack, dir).catch((err: unknown) => {
        console.log(`note: screenshots failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
      });
    }
    return { switchboard, opencode };
  } finally {
    await browser.close();
  }
}
