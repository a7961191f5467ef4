import type { ToolName } from "@/lib/model";

/**
 * Agents' own tool names → canonical tools (`ToolName` in lib/model.ts), shared by the normalizers
 * (OpenCode's tool ids; ACP titles of kind `other`). A protocol adds its own aliases on top.
 */
export const TOOL_NAMES: Readonly<Record<string, ToolName>> = {
  bash: "bash",
  shell: "bash",
  read: "read",
  write: "write",
  edit: "edit",
  multiedit: "edit",
  patch: "patch",
  apply_patch: "patch",
  grep: "grep",
  glob: "glob",
  list: "list",
  ls: "list",
  webfetch: "webfetch",
  task: "task",
  todowrite: "todo",
  todoread: "todo",
  question: "question",
};

/** The canonical tool of a name (case-insensitive), `other` when unknown. */
export function canonicalTool(name: string, aliases: Readonly<Record<string, ToolName>> = TOOL_NAMES): ToolName {
  return aliases[name.toLowerCase()] ?? "other";
}
