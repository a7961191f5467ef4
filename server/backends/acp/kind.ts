import "server-only";
import { StdioBackendConfig } from "@/lib/api";
import { defineStdioKind } from "../shared/kind";
import { AcpAdapter } from "./adapter";
import { ACP_PRESETS } from "./presets";

/** `acp`: any Agent Client Protocol agent over stdio (docs/backends/acp.md). */
export const acpKind = defineStdioKind({
  kind: "acp",
  title: "ACP agent",
  config: StdioBackendConfig,
  presets: ACP_PRESETS,
  create: (options, sink) => new AcpAdapter(options, sink),
});
