import "server-only";
import { defineStdioKind } from "../shared/kind";
import { OpalAdapter } from "./adapter";

/** `opal`: `opal-server` over stdio, JSON-RPC 2.0 on NDJSON (docs/backends/opal.md). */
export const opalKind = defineStdioKind({
  kind: "opal",
  title: "Opal",
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
  create: (options, sink) => new OpalAdapter(options, sink),
});
