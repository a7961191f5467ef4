import "server-only";
import type { BackendPreset } from "@/lib/api";
import { resolveCommand } from "../../processes/resolve-command";

/** Ready-made ACP agents (docs/backends/acp.md). */
export const ACP_PRESETS: Omit<BackendPreset, "available" | "path">[] = [
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

/** The presets, each marked available when its binary is on PATH or in the console's node_modules/.bin. */
export function detectPresets(): BackendPreset[] {
  return ACP_PRESETS.map((p) => {
    const found = resolveCommand(p.command[0]!);
    return { ...p, available: found !== undefined, ...(found ? { path: found } : {}) };
  });
}
