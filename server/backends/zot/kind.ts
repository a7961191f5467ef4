import "server-only";
import { StdioBackendConfig } from "@/lib/api";
import { defineKind, ownEnv } from "../shared/kind";
import { ZotAdapter } from "./adapter";
import { ZOT_PRESETS } from "./presets";

/** `zot`: `zot rpc`, one process per console session (docs/backends/zot.md). */
export const zotKind = defineKind({
  kind: "zot",
  title: "zot",
  form: "command",
  config: StdioBackendConfig,
  directories: ["cwd"],
  presets: ZOT_PRESETS,
  create: (config, ctx) =>
    new ZotAdapter(
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
