/**
 * Copilot's tool calls (`tool.execution_*` events) → canonical tool blocks `tool:<toolCallId>`: the
 * canonical tool name, the arguments with the keys the renderers read, the output without the
 * shell's exit-code marker, and the status as the call runs and ends.
 */
import type { TimelineEvent, ToolBlock, ToolName, ToolStatus } from "@/lib/model";
import { canonicalTool, TOOL_NAMES } from "../shared/tool-names";
import { num, obj, str } from "../shared/values";
import { clip, type CopilotEvent } from "./events";

/** Copilot's tool names on top of the shared table. */
const COPILOT_TOOLS: Readonly<Record<string, ToolName>> = {
  ...TOOL_NAMES,
  view: "read",
  create: "write",
  str_replace_editor: "edit",
  web_fetch: "webfetch",
  ask_user: "question",
  read_bash: "bash",
  write_bash: "bash",
  stop_bash: "bash",
  list_bash: "bash",
  update_todo: "todo",
};

export function copilotTool(name: string): ToolName {
  return canonicalTool(name, COPILOT_TOOLS);
}

/** The tool's arguments with the keys the canonical renderers read (filePath, content, oldString …) added. */
export function toolInput(tool: ToolName, args: unknown): Record<string, unknown> {
  const a = obj(args);
  const path = str(a.path);
  switch (tool) {
    case "read":
      return path ? { ...a, filePath: path } : a;
    case "write":
      return {
        ...a,
        ...(path ? { filePath: path } : {}),
        ...(str(a.file_text) !== undefined ? { content: str(a.file_text) } : {}),
      };
    case "edit":
      return {
        ...a,
        ...(path ? { filePath: path } : {}),
        ...(str(a.old_str) !== undefined ? { oldString: str(a.old_str) } : {}),
        ...(str(a.new_str) !== undefined ? { newString: str(a.new_str) } : {}),
      };
    default:
      return a;
  }
}

const SHELL_MARKER = /\n?<shellId: [^>]*? with exit code (-?\d+)>\s*$/;

/** Tool output without Copilot's trailing `<shellId: N completed with exit code N>` marker, and that code. */
export function shellOutput(text: string): { output: string; exitCode?: number } {
  const m = SHELL_MARKER.exec(text);
  if (!m) return { output: text };
  return { output: text.slice(0, m.index), exitCode: Number(m[1]) };
}

interface OpenTool {
  messageId: string;
  block: ToolBlock;
}

/** The tool calls of one interaction, by `toolCallId`, with the message each block is in. */
export class ToolCalls {
  private tools = new Map<string, OpenTool>();

  /** The message of a call that has already started (a repeated start stays in it). */
  messageOf(callId: string): string | undefined {
    return this.tools.get(callId)?.messageId;
  }

  /** `tool.execution_start`: the call's block, running, in message `messageId`. */
  start(ev: CopilotEvent, messageId: string): TimelineEvent[] {
    const d = ev.data;
    const callId = str(d.toolCallId);
    const rawTool = str(d.toolName);
    if (!callId || !rawTool) return [];
    const tool = copilotTool(rawTool);
    const toolTitle = str(d.toolTitle);
    const block: ToolBlock = {
      id: `tool:${callId}`,
      kind: "tool",
      callId,
      tool,
      rawTool,
      ...(tool === "other" && toolTitle ? { title: toolTitle } : {}),
      status: "running",
      input: toolInput(tool, d.arguments),
      startedAt: ev.timestamp,
    };
    const t: OpenTool = { messageId, block };
    this.tools.set(callId, t);
    return [{ type: "block.updated", messageId, block }];
  }

  /** `tool.execution_progress`: the progress message is the running call's title. */
  progress(ev: CopilotEvent): TimelineEvent[] {
    const t = this.tools.get(str(ev.data.toolCallId) ?? "");
    const msg = str(ev.data.progressMessage);
    if (!t || !msg || t.block.status !== "running") return [];
    return this.set(t, { ...t.block, title: clip(msg, 160) });
  }

  /** `tool.execution_partial_result`: the output so far (Copilot repeats it whole), not a delta. */
  partialResult(ev: CopilotEvent): TimelineEvent[] {
    const t = this.tools.get(str(ev.data.toolCallId) ?? "");
    const out = str(ev.data.partialOutput);
    if (!t || out === undefined || t.block.output === out) return [];
    return this.set(t, { ...t.block, output: out });
  }

  /** `tool.execution_complete`: the call's status, output, error and exit code. */
  complete(ev: CopilotEvent): TimelineEvent[] {
    const d = ev.data;
    const callId = str(d.toolCallId);
    if (!callId) return [];
    const t = this.tools.get(callId);
    if (!t) return [];
    const result = obj(d.result);
    const err = obj(d.error);
    const success = d.success === true;
    const raw = str(result.content) ?? "";
    const shell = shellOutput(raw);
    const exitCode = num(obj(d.shellExecution).exitCode) ?? shell.exitCode;
    const status: ToolStatus = success ? "completed" : str(err.code) === "denied" ? "denied" : "error";
    const block: ToolBlock = {
      ...t.block,
      status,
      endedAt: Math.max(ev.timestamp, t.block.startedAt ?? 0),
      ...(success || shell.output ? { output: shell.output } : {}),
      ...(!success ? { error: str(err.message) ?? "The tool failed" } : {}),
      ...(exitCode !== undefined && t.block.tool === "bash" ? { exitCode } : {}),
    };
    if (block.title && t.block.tool !== "other") delete block.title;
    return this.set(t, block);
  }

  /** Tools still running when their turn ends did not finish. */
  end(at: number, status: ToolStatus): TimelineEvent[] {
    const events: TimelineEvent[] = [];
    for (const t of this.tools.values()) {
      if (t.block.status !== "running" && t.block.status !== "pending" && t.block.status !== "awaiting-approval")
        continue;
      events.push(...this.set(t, { ...t.block, status, endedAt: Math.max(at, t.block.startedAt ?? 0) }));
    }
    return events;
  }

  clear(): void {
    this.tools.clear();
  }

  private set(t: OpenTool, block: ToolBlock): TimelineEvent[] {
    t.block = block;
    return [{ type: "block.updated", messageId: t.messageId, block }];
  }
}
