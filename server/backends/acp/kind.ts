import "server-only";
import { defineStdioKind } from "../shared/kind";
import { AcpAdapter } from "./adapter";
import { ACP_PRESETS } from "./presets";

/** `acp`: any Agent Client Protocol agent over stdio (docs/backends/acp.md). */
export const acpKind = defineStdioKind({
  kind: "acp",
  title: "ACP agent",
  presets: ACP_PRESETS,
  create: (options, sink) => new AcpAdapter(options, sink),
});
