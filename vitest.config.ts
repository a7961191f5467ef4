import { defineConfig } from "vitest/config";
import os from "node:os";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["**/*.test.ts", "**/*.test.tsx"],
    exclude: ["node_modules/**", "e2e/**", ".next/**"],
    environment: "node",
    // No unit test writes to the real data folder (~/.local/share/switchboard): tests that need one set their own.
    env: { SWITCHBOARD_DATA_DIR: path.join(os.tmpdir(), `switchboard-vitest-data-${process.pid}`) },
    // Vitest's default on two cores is one worker (cores - 1); most unit files wait on real agents,
    // servers and git rather than compute, so three run side by side (VITEST_WORKERS to change it).
    maxWorkers: Number(process.env.VITEST_WORKERS ?? 3),
    // On CI a failed test runs once more, as Playwright's do (docs/testing.md, "Retries").
    retry: process.env.CI ? 1 : 0,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // server-only throws outside a React server build; tests import server modules directly.
    alias: { "server-only": path.resolve(import.meta.dirname, "testkit/server-only-stub.ts") },
  },
});
