import "server-only";
import { CopilotBackendConfig } from "@/lib/api";
import { defineStdioKind } from "../shared/kind";
import { CopilotAdapter } from "./adapter";

/** `copilot`: the GitHub Copilot CLI's headless server over stdio (docs/backends/copilot.md). */
export const copilotKind = defineStdioKind({
  kind: "copilot",
  title: "GitHub Copilot CLI (headless)",
  config: CopilotBackendConfig,
  presets: [
    {
      id: "copilot-headless",
      kind: "copilot",
      label: "GitHub Copilot CLI (headless)",
      description:
        "copilot --headless --stdio (npm @github/copilot): rewind, questions, forms, compaction. Log in with `copilot login`, or add a provider (bring your own key) through SWITCHBOARD_BACKENDS or the API.",
      command: ["copilot", "--headless", "--stdio", "--no-auto-update"],
    },
  ],
  // Copilot keeps its sessions itself (no store); its own config adds a provider and a model.
  create: ({ store: _store, ...options }, sink, config) =>
    new CopilotAdapter(
      {
        ...options,
        ...(config.provider ? { provider: config.provider } : {}),
        ...(config.model ? { model: config.model } : {}),
      },
      sink,
    ),
});
