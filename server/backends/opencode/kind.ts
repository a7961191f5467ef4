import "server-only";
import { OpencodeBackendConfig } from "@/lib/api";
import { EmbeddedOpencode } from "../../processes/opencode-serve";
import { defineKind, ownEnv } from "../shared/kind";
import { OpencodeAdapter } from "./adapter";

/** `opencode`: an `opencode serve` at `baseUrl`, or one the console runs itself (docs/architecture.md). */
export const opencodeKind = defineKind({
  kind: "opencode",
  title: "OpenCode server",
  form: "url",
  config: OpencodeBackendConfig,
  directories: ["directory"],
  create: (config, ctx) =>
    new OpencodeAdapter(
      {
        id: ctx.id,
        label: ctx.label,
        ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
        ...(config.username ? { username: config.username } : {}),
        ...(config.password ? { password: config.password } : {}),
        ...(config.directory ? { directory: config.directory } : {}),
        ...(config.contract ? { contract: config.contract } : {}),
        ...(config.baseUrl
          ? {}
          : { embedded: new EmbeddedOpencode({ cwd: config.directory ?? ctx.workspace, ...ownEnv(config) }) }),
      },
      ctx.sink,
    ),
});
