import { defineConfig } from "@playwright/test";
import type { OpencodeContractOption } from "./testkit/opencode-stack";

/**
 * End-to-end tests against the built console (`next start`) with a real `opencode serve` driven by
 * the project's scripted model. Chromium comes from Debian (/usr/bin/chromium); Playwright's own
 * browser download does not work here.
 */
export default defineConfig<{ opencodeContract: OpencodeContractOption }, { opencodeContract: OpencodeContractOption }>(
  {
    testDir: "./e2e",
    testMatch: /.*\.spec\.ts/,
    timeout: 90_000,
    expect: { timeout: 20_000 },
    fullyParallel: false,
    // A stack per worker (testkit/opencode-stack.ts). On two cores a second worker gained little and
    // cost flakes under the load (docs/testing.md, "Workers"); E2E_WORKERS=2 where there are more cores.
    workers: Number(process.env.E2E_WORKERS ?? 1),
    // On CI a failed test is run once more, in a fresh worker and stack, and a pass the second time
    // is reported as "flaky" in the list output; docs/testing.md keeps the flakes found that way.
    retries: process.env.CI ? 1 : 0,
    reporter: [["list"]],
    outputDir: "test-results",
    use: {
      browserName: "chromium",
      launchOptions: {
        executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--disable-dev-shm-usage",
        ],
      },
      viewport: { width: 1360, height: 860 },
      // Spinners and pulses hold still (the states they show have their own text and attributes): a
      // spinning spinner is a software-composited frame 60 times a second, and with reduced motion
      // Chromium's GPU and browser processes used 24 of 46 CPU-seconds less over the timeline spec.
      reducedMotion: "reduce",
      // On CI a trace is recorded only for a failed test's retry: recording one for every test (to keep
      // it on failure) cost Chromium a screencast frame per paint and the runner its processing, a
      // quarter of the CPU over the timeline spec, and a CI run keeps only its printed output anyway.
      trace: process.env.CI ? "on-first-retry" : "retain-on-failure",
      screenshot: "only-on-failure",
      actionTimeout: 15_000,
    },
    projects: [
      // Tests tagged @api-only check what only the /api contract does (below).
      { name: "default", grepInvert: /@api-only/ },
      // Project `opencode-api`: OpenCode tests again with the stack's OpenCode behind the `/api`-only
      // proxy (how an OpenCode 2 server looks; docs/backends/opencode.md, "Testing both"). A subset, to
      // keep the suite's time, chosen by tag: `test(title, { tag: "@api" }, …)` in the specs, and the
      // tests tagged @api-only. Tagged: the timeline, interrupts and review tests whose path differs on
      // /api (streaming, reasoning, tools, Stop, reload, a model error, queued prompts, permissions
      // once/always/reject, questions answered and dismissed, a console restart with a pending
      // permission, compaction, todos), the mentions spec's `@` search and prompt (`/api/fs/find`; the
      // mention goes as text), the attachments spec's image and text file (the text file goes as text),
      // and of the faults spec the two that reach OpenCode: the server SIGKILLed mid-reply (the stack
      // starts a new one behind the proxy, as a service manager would) and the browser's stream cut 20
      // times (the others fault the console's own parts or a fake V1 server). Not tagged:
      // - what /api hides (never faked): fork, rename, delete, subagent children, the review panel's
      //   per-turn patches, title search (the sidebar tests);
      // - what OpenCode 1.18's /api does otherwise, so the V1 test cannot pass there: compaction (503,
      //   checked by the @api-only test instead), feedback on a rejection (accepted, never reaches the
      //   model), the edit permission's diff (not sent), the model list (every catalog model), revert
      //   (its commit keeps the revert point's user message), and the write tool's arguments (`path`).
      {
        name: "opencode-api",
        grep: /@api\b/,
        use: { opencodeContract: "api" as const },
      },
    ],
  },
);
