/**
 * ACP tool calls → canonical tool blocks: the tool's name from its kind and title, its status, its
 * content and output, exit codes, todos from a plan tool, and the patterns a permission request
 * is about. Pure and defensive, like ./normalize.ts (which keeps the per-session state).
 */
import type { ToolBlock, ToolName, ToolStatus, Todo } from "@/lib/model";
import { TOOL_NAMES } from "../shared/tool-names";
import { arr, isObj, num, obj, str, type Obj } from "../shared/values";

/** The text of an ACP content block (text, a resource link as a Markdown link, an embedded text resource). */
export function contentText(content: unknown): string | undefined {
  const c = obj(content);
  switch (str(c.type)) {
    case "text":
      return str(c.text);
    case "resource_link":
      return str(c.uri) ? `[${str(c.title) ?? str(c.name) ?? str(c.uri)}](${str(c.uri)})` : undefined;
    case "resource": {
      const r = obj(c.resource);
      return str(r.text);
    }
    default:
      return undefined;
  }
}

/** OpenCode's names and the aliases ACP agents use in their titles. */
const TITLE_TOOLS: Readonly<Record<string, ToolName>> = {
  ...TOOL_NAMES,
  view: "read",
  create: "write",
  fetch: "webfetch",
};

/** ACP `ToolKind` (plus, for kind `other`, the agent's tool name in the title) → canonical tool. */
export function toolNameOf(kind: string | undefined, title: string | undefined): ToolName {
  switch (kind) {
    case "execute":
      return "bash";
    case "read":
      return "read";
    case "edit":
      return "edit";
    case "search":
      return title && /\bglob\b/i.test(title) ? "glob" : "grep";
    case "fetch":
      return "webfetch";
    case "delete":
    case "move":
    case "think":
    case "switch_mode":
      return "other";
    default: {
      const t = (title ?? "").trim().toLowerCase();
      return TITLE_TOOLS[t] ?? (/^\d+ todos?$/.test(t) ? "todo" : "other");
    }
  }
}

function toolStatusOf(status: string | undefined, prev: ToolStatus, errorText: string | undefined): ToolStatus {
  switch (status) {
    case "pending":
      return prev === "awaiting-approval" ? prev : "pending";
    case "in_progress":
      return "running";
    case "completed":
      return "completed";
    case "failed":
      return errorText &&
        /rejected permission|permission denied|user (rejected|denied)|denied by the user/i.test(errorText)
        ? "denied"
        : "error";
    default:
      return prev;
  }
}

const SHELL_MARKER = /<shellId: [^>]*? completed with exit code (-?\d+)>\s*$/;

interface ToolContent {
  text?: string;
  diff?: { path: string; oldText?: string; newText: string };
}

function toolContent(content: unknown): ToolContent {
  const texts: string[] = [];
  let diff: ToolContent["diff"];
  for (const item of arr(content)) {
    const c = obj(item);
    if (c.type === "content") {
      const t = contentText(c.content);
      if (t !== undefined) texts.push(t);
    } else if (c.type === "diff" && str(c.path) && typeof c.newText === "string") {
      diff = {
        path: str(c.path)!,
        newText: c.newText,
        ...(typeof c.oldText === "string" ? { oldText: c.oldText } : {}),
      };
    }
  }
  return { ...(texts.length ? { text: texts.join("\n") } : {}), ...(diff ? { diff } : {}) };
}

function rawOutputText(raw: unknown): string | undefined {
  if (typeof raw === "string") return raw;
  const r = obj(raw);
  // Codex sends its exec end event: `aggregated_output` (stdout and stderr), `formatted_output`, `stdout`.
  return (
    str(r.output) ??
    str(r.aggregated_output) ??
    str(r.formatted_output) ??
    str(r.stdout) ??
    str(r.content) ??
    str(r.error) ??
    str(r.message)
  );
}

function exitCodeOf(raw: unknown, text: string | undefined): number | undefined {
  const r = obj(raw);
  for (const c of arr(r.contents)) {
    const x = obj(c);
    if (x.type === "shell_exit" && num(x.exitCode) !== undefined) return num(x.exitCode);
  }
  const meta = obj(r.metadata);
  if (num(meta.exit) !== undefined) return num(meta.exit);
  if (num(r.exit_code) !== undefined) return num(r.exit_code);
  const m = text ? SHELL_MARKER.exec(text) : null;
  return m ? Number(m[1]) : undefined;
}

/**
 * A terminal command's output and exit as codex-acp 2.x sends them to a client without terminals (and
 * as Zed's convention has it): output chunks in `_meta.terminal_output_delta` (or `terminal_output`)
 * `.data`, the exit in `_meta.terminal_exit.exit_code`; `content` then only names the terminal.
 */
function terminalMeta(u: Obj): { chunk?: string; exit?: number } {
  const m = obj(u._meta);
  const chunk = str(obj(m.terminal_output_delta).data) ?? str(obj(m.terminal_output).data);
  const exit = num(obj(m.terminal_exit).exit_code);
  return { ...(chunk !== undefined ? { chunk } : {}), ...(exit !== undefined ? { exit } : {}) };
}

/** Merges a `tool_call` / `tool_call_update` (absent fields keep their value) into a canonical block. */
export function mergeTool(
  prev: ToolBlock | undefined,
  u: Obj,
  messageId: string,
  now: number,
  rejected = false,
): ToolBlock {
  const callId = str(u.toolCallId) ?? prev?.callId ?? "tool";
  const kind = str(u.kind);
  const title = str(u.title);
  const b: ToolBlock = prev
    ? { ...prev }
    : {
        id: `${messageId}-tool-${callId}`,
        kind: "tool",
        callId,
        tool: toolNameOf(kind, title),
        rawTool: kind && kind !== "other" ? kind : (title ?? "other"),
        status: "pending",
        input: {},
        startedAt: now,
      };
  if (prev && kind && kind !== "other" && kind !== prev.rawTool) {
    b.tool = toolNameOf(kind, title);
    b.rawTool = kind;
  }
  if (title) b.title = title;
  if (isObj(u.rawInput) && Object.keys(u.rawInput).length > 0) b.input = { ...u.rawInput };
  const content = u.content !== undefined && u.content !== null ? toolContent(u.content) : undefined;
  const term = terminalMeta(u);
  let text = content?.text ?? (u.rawOutput !== undefined ? rawOutputText(u.rawOutput) : undefined);
  if (text === undefined && term.chunk !== undefined) text = (prev?.output ?? prev?.error ?? "") + term.chunk;
  const exit = exitCodeOf(u.rawOutput, text) ?? term.exit;
  if (text !== undefined) text = text.replace(SHELL_MARKER, "");
  if (exit !== undefined) b.exitCode = exit;
  if (content?.diff) {
    const d = content.diff;
    b.input = {
      filePath: d.path,
      ...b.input,
      ...(d.oldText !== undefined ? { oldString: d.oldText, newString: d.newText } : { content: d.newText }),
    };
    if (b.tool === "other" || b.tool === "edit")
      b.tool = d.oldText === undefined || d.oldText === "" ? "write" : "edit";
  }
  let status = toolStatusOf(str(u.status), b.status, text);
  const code = str(obj(u.rawOutput).code);
  if (status === "error" && (rejected || code === "rejected" || code === "denied")) status = "denied";
  if (status === "error" || status === "denied") {
    if (text !== undefined) b.error = text;
    else if (!b.error) b.error = status === "denied" ? "Denied" : "The tool failed";
  } else if (text !== undefined) {
    b.output = text;
  }
  b.status = status;
  if ((status === "completed" || status === "error" || status === "denied") && b.endedAt === undefined) b.endedAt = now;
  // Locations are the best input we have for tools that carry no rawInput.
  if (Object.keys(b.input).length === 0) {
    const loc = obj(arr(u.locations)[0]);
    if (str(loc.path))
      b.input = { path: str(loc.path)!, ...(num(loc.line) !== undefined ? { line: num(loc.line)! } : {}) };
  }
  return b;
}

export function toTodos(raw: unknown): Todo[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.flatMap((t) => {
    const o = obj(t);
    const content = str(o.content);
    return content
      ? [{ content, status: str(o.status) ?? "pending", ...(str(o.priority) ? { priority: str(o.priority)! } : {}) }]
      : [];
  });
}

/* ------------------------------------------------------------------------------ permissions */

export function patternsOf(input: Obj, locations: unknown): string[] {
  const out: string[] = [];
  const cmd = input.command;
  if (typeof cmd === "string") out.push(cmd);
  else if (Array.isArray(cmd)) out.push(cmd.filter((c) => typeof c === "string").join(" "));
  for (const k of ["path", "filePath", "file_path", "url", "pattern"])
    if (typeof input[k] === "string") out.push(input[k] as string);
  for (const l of arr(locations)) if (str(obj(l).path)) out.push(str(obj(l).path)!);
  return [...new Set(out)];
}

export function optionKind(kind: string | undefined): "allow_once" | "allow_always" | "reject" | undefined {
  if (kind === "allow_once" || kind === "allow_always") return kind;
  if (kind === "reject_once" || kind === "reject_always") return "reject";
  return undefined;
}
