/**
 * The A2A end-to-end tests (e2e/a2a-suite.ts) against agents that speak only A2A 0.3 (the SDK's
 * compat layer, a card whose interfaces say 0.3): the console reaches them through the SDK client's
 * 0.3 transports.
 */
import { test } from "./fixtures/a2a";
import { a2aSuite } from "./a2a-suite";

test.use({ a2aVersion: "0.3" });
a2aSuite("0.3");
