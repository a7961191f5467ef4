import "server-only";
import { defineStdioKind } from "../shared/kind";
import { ZotAdapter } from "./adapter";
import { ZOT_PRESETS } from "./presets";

/** `zot`: `zot rpc`, one process per console session (docs/backends/zot.md). */
export const zotKind = defineStdioKind({
  kind: "zot",
  title: "zot",
  presets: ZOT_PRESETS,
  create: (options, sink) => new ZotAdapter(options, sink),
});
