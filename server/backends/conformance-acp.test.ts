/** The conformance suite (conformance.ts) against the real ACP agents (`copilot --acp`, `opencode acp`) and Copilot's headless server. */
import { copilotAgent, opencodeAcpAgent } from "../../testkit/acp-env";
import { conformanceSuite } from "./conformance";
import { acpTarget, copilotHeadlessTarget } from "./conformance-targets";

process.env.SWITCHBOARD_LOG ??= "silent";

conformanceSuite(
  "ACP adapter (copilot --acp)",
  acpTarget((url) => copilotAgent({ modelBaseUrl: url })),
);
conformanceSuite(
  "ACP adapter (opencode acp)",
  acpTarget((url) => opencodeAcpAgent({ modelBaseUrl: url })),
);
conformanceSuite("Copilot headless adapter (copilot --headless --stdio)", copilotHeadlessTarget);
