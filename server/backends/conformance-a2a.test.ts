/** The conformance suite (conformance.ts) against the test A2A server's opencode-a2a bridge to a real `opencode serve`. */
import { conformanceSuite } from "./conformance";
import { a2aTarget } from "./conformance-targets";

process.env.SWITCHBOARD_LOG ??= "silent";

conformanceSuite("A2A adapter (opencode-a2a bridge to opencode serve, A2A 1.0)", a2aTarget("opencode"));
conformanceSuite("A2A adapter (opencode-a2a bridge to opencode serve, A2A 0.3)", a2aTarget("opencode", "0.3"));
conformanceSuite(
  "A2A adapter (opencode-a2a 1.0 release bridge to opencode serve, A2A 1.0)",
  a2aTarget("opencode", "1.0", "1.0"),
);
