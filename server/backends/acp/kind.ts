import "server-only";
import { AcpBackendConfig } from "@/lib/api";
import { defineStdioKind } from "../shared/kind";
import { AcpAdapter } from "./adapter";
import { ACP_PRESETS } from "./presets";

/** `acp`: any Agent Client Protocol agent over stdio (docs/backends/acp.md). */
export const acpKind = defineStdioKind({
  kind: "acp",
  title: "ACP agent",
  presets: ACP_PRESETS,
  config: AcpBackendConfig,
  // `acpVersion: 1`: v1 only (./link.ts negotiates v2 otherwise)
  create: (options, sink, config) =>
    new AcpAdapter({ ...options, ...(config.acpVersion === 1 ? { acpVersion: 1 as const } : {}) }, sink),
});
