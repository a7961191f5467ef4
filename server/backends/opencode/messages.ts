/** OpenCode V1 messages and their parts → canonical messages and blocks. Pure and defensive. */
import type { Block, FileChange, FileDiff, Message, MessageError, MessageInfo, ToolBlock, ToolName } from "@/lib/model";
import { canonicalTool } from "../shared/tool-names";
import { arr, isObj, num, obj, str, type Obj } from "../shared/values";
import { toUsage } from "./sessions";
import { toolStatusOf, V1_TOOL_ERRORS } from "./tool-status";

export function toMessageError(raw: unknown): MessageError | undefined {
  if (!isObj(raw)) return undefined;
  const name = str(raw.name) ?? "Error";
  const data = obj(raw.data);
  let message = str(data.message) ?? str(raw.message) ?? name;
  const code = num(data.statusCode);
  if (code && !message.includes(String(code))) message = `${message} (HTTP ${code})`;
  return { name, message, ...(name === "MessageAbortedError" ? { aborted: true } : {}) };
}

export function toMessageInfo(raw: unknown): MessageInfo | null {
  const m = obj(raw);
  const id = str(m.id);
  const sessionId = str(m.sessionID);
  const role = str(m.role);
  if (!id || !sessionId || (role !== "user" && role !== "assistant")) return null;
  const time = obj(m.time);
  const info: MessageInfo = { id, sessionId, role, createdAt: num(time.created) ?? Date.now() };
  const completed = num(time.completed);
  if (completed) info.completedAt = completed;
  if (role === "user") {
    const model = obj(m.model);
    if (str(model.modelID))
      info.model = { id: str(model.modelID)!, ...(str(model.providerID) ? { provider: str(model.providerID)! } : {}) };
    const diffs = toFileDiffs(obj(m.summary).diffs).map(({ patch: _patch, ...change }): FileChange => change);
    if (diffs.length) info.diffs = diffs;
  } else {
    if (str(m.parentID)) info.parentId = str(m.parentID)!;
    if (str(m.modelID))
      info.model = { id: str(m.modelID)!, ...(str(m.providerID) ? { provider: str(m.providerID)! } : {}) };
    const usage = toUsage(m.tokens, m.cost);
    if (usage && (usage.inputTokens || usage.outputTokens)) info.usage = usage;
    const err = toMessageError(m.error);
    if (err) info.error = err;
    if (m.summary === true) info.summary = true;
  }
  if (str(m.agent)) info.agent = str(m.agent)!;
  return info;
}

/** OpenCode's `[{file, patch, additions, deletions, status}]` (diff route, `summary.diffs`). */
export function toFileDiffs(raw: unknown): FileDiff[] {
  return arr(raw).flatMap((d) => {
    const o = obj(d);
    const path = str(o.file) ?? str(o.path);
    if (!path) return [];
    const status = str(o.status);
    return [
      {
        path,
        status: status === "added" || status === "deleted" ? status : "modified",
        additions: num(o.additions) ?? 0,
        deletions: num(o.deletions) ?? 0,
        patch: str(o.patch) ?? "",
      },
    ];
  });
}

/* ------------------------------------------------------------------------------ parts */

export function normalizeToolName(raw: string): ToolName {
  return canonicalTool(raw);
}

export function toToolBlock(p: Obj): ToolBlock | null {
  const id = str(p.id);
  const callId = str(p.callID) ?? id;
  const rawTool = str(p.tool) ?? "tool";
  if (!id || !callId) return null;
  const state = obj(p.state);
  const meta = obj(state.metadata);
  const error = str(state.error);
  const status = toolStatusOf(str(state.status), error, V1_TOOL_ERRORS);
  const b: ToolBlock = {
    id,
    kind: "tool",
    callId,
    tool: normalizeToolName(rawTool),
    rawTool,
    status,
    input: obj(state.input),
  };
  const title = str(state.title);
  if (title) b.title = title;
  const output = str(state.output) ?? str(meta.output);
  if (output !== undefined) b.output = output;
  if (error) b.error = error;
  const exit = num(meta.exit);
  if (exit !== undefined) b.exitCode = exit;
  const child = str(meta.sessionId);
  if (child) b.childSessionId = child;
  const time = obj(state.time);
  if (num(time.start)) b.startedAt = num(time.start)!;
  if (num(time.end)) b.endedAt = num(time.end)!;
  return b;
}

/** A part as a canonical block, or null for parts that are bookkeeping (step-start, patch …). */
export function toBlock(raw: unknown): Block | null {
  const p = obj(raw);
  const id = str(p.id);
  if (!id) return null;
  switch (str(p.type)) {
    case "text":
      if (p.synthetic === true || p.ignored === true) return null;
      return { id, kind: "text", text: str(p.text) ?? "" };
    case "reasoning": {
      const time = obj(p.time);
      const b: Block = { id, kind: "reasoning", text: str(p.text) ?? "" };
      if (num(time.start)) b.startedAt = num(time.start)!;
      if (num(time.end)) b.endedAt = num(time.end)!;
      return b;
    }
    case "tool":
      return toToolBlock(p);
    case "file":
      return {
        id,
        kind: "file",
        name: str(p.filename) ?? "file",
        mime: str(p.mime) ?? "application/octet-stream",
        url: str(p.url) ?? "",
      };
    case "compaction":
      return {
        id,
        kind: "notice",
        level: "info",
        code: "compaction",
        text: p.auto === true ? "Context compacted automatically" : "Conversation compacted",
      };
    case "retry": {
      const err = toMessageError(p.error);
      return {
        id,
        kind: "notice",
        level: "warn",
        code: "retry",
        text: `Retrying: ${err?.message ?? "upstream error"}`,
      };
    }
    default:
      return null;
  }
}

export function toMessage(raw: unknown): Message | null {
  const item = obj(raw);
  const info = toMessageInfo(item.info);
  if (!info) return null;
  const blocks: Block[] = [];
  for (const p of arr(item.parts)) {
    const b = toBlock(p);
    if (b) blocks.push(b);
  }
  return { ...info, blocks };
}
