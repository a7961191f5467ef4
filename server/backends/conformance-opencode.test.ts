/** The conformance suite (conformance.ts) against the real `opencode serve`, through its V1 routes and `/api` only. */
import { conformanceSuite } from "./conformance";
import { opencodeTarget } from "./conformance-targets";

process.env.SWITCHBOARD_LOG ??= "silent";

conformanceSuite("OpenCode adapter (opencode serve)", opencodeTarget("v1"));
conformanceSuite("OpenCode adapter (opencode serve, /api only)", opencodeTarget("api"));
