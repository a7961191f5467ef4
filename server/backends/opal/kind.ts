import "server-only";
import { StdioBackendConfig } from "@/lib/api";
import { defineKind, ownEnv } from "../shared/kind";
import { OpalAdapter } from "./adapter";

/** `opal`: `opal-server` over stdio, JSON-RPC 2.0 on NDJSON (docs/backends/opal.md). */
export const opalKind = defineKind({
  kind: "opal",
  title: "Opal",
  form: "command",
  config: StdioBackendConfig,
  directories: ["cwd"],
  presets: [
    {
      id: "opal",
      kind: "opal",
      label: "Opal",
      description:
        "opal-server (github.com/matteing/opal): sessions kept by Opal, questions, sub-agents, tasks, branches. Log in with GitHub Copilot: the console shows Opal's device code.",
      command: ["opal-server"],
    },
  ],
  create: (config, ctx) =>
    new OpalAdapter(
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
