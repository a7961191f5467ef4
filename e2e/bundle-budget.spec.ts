/**
 * The session page's initial JavaScript stays under its budget (docs/performance.md, "JavaScript"):
 * read from the build these tests run against, so a change that adds a panel to the first load fails
 * here, with the chunks that make it up. `npm run bench -- bundle` says what is in each.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { describeBundle, PAGES, pageBundle, SESSION_PAGE_BUDGET_KB } from "../scripts/bundle-size";

test("the session page's initial JavaScript is under its gzip budget", () => {
  const bundle = pageBundle(PAGES["session page"]!);
  const kb = bundle.gzipBytes / 1024;
  test.info().annotations.push({ type: "session page JS", description: `${kb.toFixed(1)} KB gzip` });
  // The runtime, the layouts and the page itself are all there: a manifest read wrong would pass too easily.
  expect(bundle.chunks.some((c) => c.entries.includes("root"))).toBe(true);
  expect(bundle.chunks.some((c) => c.entries.some((e) => e.endsWith("[sessionId]/page")))).toBe(true);
  expect(kb, describeBundle("session page", bundle, null).join("\n")).toBeLessThan(SESSION_PAGE_BUDGET_KB);
});

test("the panels opened on demand are not in the session page's first load", () => {
  const initial = pageBundle(PAGES["session page"]!)
    .chunks.map((c) => fs.readFileSync(path.join(".next", c.file), "utf8"))
    .join("\n");
  // Each panel's test id is written once, in its own module: found in the first load, that module is there.
  // This turn's panels too: the git panel, the terminal, the file browser and push set-up.
  for (const testId of [
    "review-panel",
    "share-dialog",
    "command-palette",
    "git-panel",
    "terminal-panel",
    "files-panel",
    "push-settings",
    // The prompt box's slash command and file mention lists.
    "command-menu",
    "mention-menu",
  ]) {
    expect(initial.includes(`"${testId}"`), `${testId} is in the session page's initial JavaScript`).toBe(false);
  }
  // xterm.js (its own class names) is not either.
  expect(initial.includes("xterm-helper-textarea")).toBe(false);
});
