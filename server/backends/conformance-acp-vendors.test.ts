/**
 * The conformance suite (conformance.ts) against the vendors' ACP adapters, codex-acp and
 * claude-agent-acp, with the scripted model: the same checks once per ACP version (both serve v1 and
 * v2; v2 is negotiated, v1 asked for with `acpVersion: 1`).
 */
import { conformanceSuite } from "./conformance";
import { acpVendorTarget } from "./conformance-targets";

process.env.SWITCHBOARD_LOG ??= "silent";

for (const version of [2, 1] as const) {
  conformanceSuite(`ACP adapter (codex-acp, ACP v${version})`, acpVendorTarget("codex", version), {
    timeoutMs: 120_000,
  });
  conformanceSuite(`ACP adapter (claude-agent-acp, ACP v${version})`, acpVendorTarget("claude-code", version), {
    timeoutMs: 120_000,
  });
}
