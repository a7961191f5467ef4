import "server-only";
import type { PresetTemplate } from "../shared/kind";

/** Ready-made ACP agents (docs/backends/acp.md). */
export const ACP_PRESETS: PresetTemplate[] = [
  {
    id: "copilot",
    kind: "acp",
    label: "GitHub Copilot CLI",
    description: "copilot --acp (npm @github/copilot). Log in with `copilot login`, or set COPILOT_PROVIDER_BASE_URL and COPILOT_MODEL for your own model.",
    command: ["copilot", "--acp", "--no-auto-update"],
  },
  {
    id: "opencode-acp",
    kind: "acp",
    label: "OpenCode (ACP)",
    description: "opencode acp (npm opencode-ai), with your OpenCode configuration and providers.",
    command: ["opencode", "acp"],
  },
];
