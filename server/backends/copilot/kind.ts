import "server-only";
import { CopilotBackendConfig } from "@/lib/api";
import { defineKind, ownEnv } from "../shared/kind";
import { CopilotAdapter } from "./adapter";

/** `copilot`: the GitHub Copilot CLI's headless server over stdio (docs/backends/copilot.md). */
export const copilotKind = defineKind({
  kind: "copilot",
  title: "GitHub Copilot CLI (headless)",
  form: "command",
  config: CopilotBackendConfig,
  directories: ["cwd"],
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
  create: (config, ctx) =>
    new CopilotAdapter(
      {
        id: ctx.id,
        label: ctx.label,
        command: config.command,
        ...ownEnv(config),
        ...(config.cwd ? { cwd: config.cwd } : {}),
        ...(config.provider ? { provider: config.provider } : {}),
        ...(config.model ? { model: config.model } : {}),
        workspace: ctx.workspace,
        source: ctx.source,
      },
      ctx.sink,
    ),
});
