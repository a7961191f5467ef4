import "server-only";
import { A2aBackendConfig } from "@/lib/api";
import { defineKind } from "../shared/kind";
import { A2aAdapter } from "./adapter";

/** `a2a`: an A2A 0.3 agent at `url` (opencode-a2a or any other), with a bearer `token` (docs/backends/a2a.md). */
export const a2aKind = defineKind({
  kind: "a2a",
  title: "A2A agent",
  form: "url",
  config: A2aBackendConfig,
  directories: [],
  create: (config, ctx) =>
    new A2aAdapter(
      {
        id: ctx.id,
        label: ctx.label,
        url: config.url,
        ...(config.token ? { token: config.token } : {}),
        store: ctx.store,
        source: ctx.source,
      },
      ctx.sink,
    ),
});
