import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests against the built console (`next start`) with a real `opencode serve` driven by
 * the project's scripted model. Chromium comes from Debian (/usr/bin/chromium); Playwright's own
 * browser download does not work here.
 */
export default defineConfig({
  testDir: "./e2e",
  testMatch: /.*\.spec\.ts/,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  // A stack per worker (e2e/fixtures/stack.ts). Two workers were measured no faster on two cores
  // (20.5 vs 22 min: the agents, consoles and browsers share the CPU); E2E_WORKERS=2 where there are more.
  workers: Number(process.env.E2E_WORKERS ?? 1),
  retries: 0,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  outputDir: "test-results",
  use: {
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
    },
    viewport: { width: 1360, height: 860 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    actionTimeout: 15_000,
  },
});
