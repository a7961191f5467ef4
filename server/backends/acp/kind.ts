import "server-only";
import { StdioBackendConfig } from "@/lib/api";
import { defineKind, ownEnv } from "../shared/kind";
import { AcpAdapter } from "./adapter";
import { ACP_PRESETS } from "./presets";

/** `acp`: any Agent Client Protocol agent over stdio (docs/backends/acp.md). */
export const acpKind = defineKind({
  kind: "acp",
  title: "ACP agent",
  form: "command",
  config: StdioBackendConfig,
  directories: ["cwd"],
  presets: ACP_PRESETS,
  create: (config, ctx) =>
    new AcpAdapter(
      {
        id: ctx.id,
        label: ctx.label,
        command: config.command,
        ...ownEnv(config),
        ...(config.cwd ? { cwd: config.cwd } : {}),
        workspace: ctx.workspace,
        store: ctx.store,
        source: ctx.source,
      },
      ctx.sink,
    ),
});
