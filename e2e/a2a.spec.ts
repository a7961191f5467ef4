/**
 * The A2A end-to-end tests (e2e/a2a-suite.ts) against agents that speak only A2A 1.0
 * (`@a2a-js/sdk` 1.x's server parts without the compat layer).
 */
import { test } from "./fixtures/a2a";
import { a2aSuite } from "./a2a-suite";

test.use({ a2aVersion: "1.0" });
a2aSuite("1.0");
