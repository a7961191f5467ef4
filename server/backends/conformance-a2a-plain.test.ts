/** The conformance suite (conformance.ts) against the test A2A server's plain agent (no tools, no questions). */
import { conformanceSuite } from "./conformance";
import { a2aTarget } from "./conformance-targets";

process.env.SWITCHBOARD_LOG ??= "silent";

conformanceSuite("A2A adapter (plain A2A agent, A2A 1.0)", a2aTarget("plain"));
conformanceSuite("A2A adapter (plain A2A agent, A2A 0.3)", a2aTarget("plain", "0.3"));
