import "server-only";
import type { PresetTemplate } from "../shared/kind";

/** Ready-made ACP agents (docs/backends/acp.md). */
export const ACP_PRESETS: PresetTemplate[] = [
  {
    id: "copilot",
    kind: "acp",
    label: "GitHub Copilot CLI",
    description:
      "copilot --acp (npm @github/copilot). Log in with `copilot login`, or set COPILOT_PROVIDER_BASE_URL and COPILOT_MODEL for your own model.",
    command: ["copilot", "--acp", "--no-auto-update"],
  },
  {
    id: "opencode-acp",
    kind: "acp",
    label: "OpenCode (ACP)",
    description: "opencode acp (npm opencode-ai), with your OpenCode configuration and providers.",
    command: ["opencode", "acp"],
  },
  {
    id: "codex",
    kind: "acp",
    label: "Codex",
    description:
      "codex-acp (npm @agentclientprotocol/codex-acp; formerly @zed-industries/codex-acp). Sign in with ChatGPT, or enter an OpenAI API key in Settings once it is added.",
    command: ["codex-acp"],
  },
  {
    id: "claude-code",
    kind: "acp",
    label: "Claude Code",
    description:
      "claude-agent-acp (npm @agentclientprotocol/claude-agent-acp; an older claude-code-acp from @zed-industries/claude-code-acp is found too). Log in with `claude-agent-acp --cli auth login` in a terminal, or enter ANTHROPIC_API_KEY in Settings once it is added.",
    command: ["claude-agent-acp"],
    alternatives: [["claude-code-acp"]],
  },
  {
    id: "gemini",
    kind: "acp",
    label: "Gemini CLI",
    description:
      "gemini --acp (npm @google/gemini-cli; --experimental-acp before 0.33). Log in with Google, or enter GEMINI_API_KEY in Settings once it is added.",
    command: ["gemini", "--acp"],
  },
];
