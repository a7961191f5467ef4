/**
 * OpenCode `/api` contract → canonical model (docs/backends/opencode.md, "Two contracts"). Pure:
 * sessions and messages from the `/api/session…` routes, interrupts and the catalog; the
 * `/api/event` stream's frames are mapped by ./api-events.ts.
 */
import type { AgentList, ModelInfo, ModelList } from "@/lib/api";
import type { Block, FileDiff, Interrupt, Message, MessageError, Session, ToolBlock, Usage } from "@/lib/model";
import { canonicalTool } from "../shared/tool-names";
import { arr, num, obj, str, type Obj } from "../shared/values";
import type { components } from "./api/schema";
import { toQuestionInterrupt } from "./interrupts";
import { toUsage } from "./sessions";
import { API_TOOL_ERRORS, toolStatusOf } from "./tool-status";

export type ApiSession = components["schemas"]["SessionV2Info"];
export type ApiMessage = components["schemas"]["SessionMessage"];
export type ApiPermission = components["schemas"]["PermissionV2Request"];
export type ApiQuestion = components["schemas"]["QuestionV2Request"];

/* ------------------------------------------------------------------------------ sessions */

export function toApiSession(s: ApiSession, backendId: string): Session {
  const out: Session = {
    id: s.id,
    backendId,
    title: s.title || "Untitled",
    createdAt: s.time.created,
    updatedAt: s.time.updated ?? s.time.created,
    status: "idle",
    directory: s.location.directory,
  };
  if (s.parentID) out.parentId = s.parentID;
  if (s.model) out.model = { id: s.model.id, provider: s.model.providerID };
  const usage = toUsage(s.tokens, s.cost);
  if (usage && (usage.inputTokens || usage.outputTokens)) out.usage = usage;
  if (s.revert) out.revert = { messageId: s.revert.messageID, ...(s.revert.diff ? { diff: s.revert.diff } : {}) };
  return out;
}

/* ------------------------------------------------------------------------------ messages */

export function errorOf(raw: unknown): MessageError | undefined {
  const e = obj(raw);
  const message = str(e.message);
  if (!message) return undefined;
  const aborted = /\babort|interrupt/i.test(message) || str(e.type) === "aborted";
  return { name: aborted ? "MessageAbortedError" : "Error", message, ...(aborted ? { aborted: true } : {}) };
}

export function toolText(content: unknown): string | undefined {
  const parts = arr(content).flatMap((c) => {
    const o = obj(c);
    return str(o.type) === "text" && str(o.text) !== undefined ? [str(o.text)!] : [];
  });
  return parts.length ? parts.join("") : undefined;
}

function inputOf(raw: unknown): Record<string, unknown> {
  if (typeof raw === "string") {
    try {
      return obj(JSON.parse(raw));
    } catch {
      return {};
    }
  }
  return obj(raw);
}

export function apiToolBlock(c: Obj): ToolBlock | null {
  const callId = str(c.id);
  if (!callId) return null;
  const rawTool = str(c.name) ?? "tool";
  const state = obj(c.state);
  const error = str(obj(state.error).message);
  const time = obj(c.time);
  const b: ToolBlock = {
    id: callId,
    kind: "tool",
    callId,
    tool: canonicalTool(rawTool),
    rawTool,
    status: toolStatusOf(str(state.status), error, API_TOOL_ERRORS),
    input: inputOf(state.input),
  };
  const output = toolText(state.content) ?? str(obj(state.structured).output);
  if (output !== undefined) b.output = output;
  if (error) b.error = error;
  const exit = num(obj(state.structured).exit);
  if (exit !== undefined) b.exitCode = exit;
  const title = str(obj(state.structured).title);
  if (title) b.title = title;
  if (num(time.created)) b.startedAt = num(time.created)!;
  if (num(time.completed)) b.endedAt = num(time.completed)!;
  return b;
}

function assistantBlocks(content: unknown): Block[] {
  return arr(content).flatMap((raw): Block[] => {
    const c = obj(raw);
    const id = str(c.id);
    if (!id) return [];
    switch (str(c.type)) {
      case "text":
        return [{ id, kind: "text", text: str(c.text) ?? "" }];
      case "reasoning": {
        const time = obj(c.time);
        return [
          {
            id,
            kind: "reasoning",
            text: str(c.text) ?? "",
            ...(num(time.created) ? { startedAt: num(time.created)! } : {}),
            ...(num(time.completed) ? { endedAt: num(time.completed)! } : {}),
          },
        ];
      }
      case "tool": {
        const b = apiToolBlock(c);
        return b ? [b] : [];
      }
      default:
        return [];
    }
  });
}

/**
 * A prompt file's address: 1.18's `{uri}`, or upstream main's `{data, mime, source}` (types.gen.ts at
 * ac9ce832, `PromptFileAttachment`): its `source.uri`, else its inline base64 `data` as a data URL.
 */
function fileUrl(f: Obj): string | undefined {
  const uri = str(f.uri) ?? str(obj(f.source).uri);
  if (uri) return uri;
  const data = str(f.data);
  return data && str(f.mime) ? `data:${str(f.mime)};base64,${data}` : undefined;
}

/** One `/api` message as a canonical one (block ids are the message's own content ids, as in the stream). */
export function toApiMessage(raw: unknown, sessionId: string): Message | null {
  const m = obj(raw);
  const id = str(m.id);
  if (!id) return null;
  const time = obj(m.time);
  const createdAt = num(time.created) ?? 0;
  switch (str(m.type)) {
    case "user":
    case "synthetic": {
      const blocks: Block[] = [{ id: `${id}-text`, kind: "text", text: str(m.text) ?? "" }];
      for (const [i, f] of arr(m.files).entries()) {
        const fo = obj(f);
        const url = fileUrl(fo);
        if (url)
          blocks.push({
            id: `${id}-file-${i}`,
            kind: "file",
            name: str(fo.name) ?? url,
            mime: str(fo.mime) ?? "application/octet-stream",
            url,
          });
      }
      return { id, sessionId, role: "user", createdAt, blocks };
    }
    case "assistant": {
      const msg: Message = { id, sessionId, role: "assistant", createdAt, blocks: assistantBlocks(m.content) };
      if (num(time.completed)) msg.completedAt = num(time.completed)!;
      const model = obj(m.model);
      if (str(model.id))
        msg.model = { id: str(model.id)!, ...(str(model.providerID) ? { provider: str(model.providerID)! } : {}) };
      if (str(m.agent)) msg.agent = str(m.agent)!;
      const usage = toUsage(m.tokens, m.cost);
      if (usage && (usage.inputTokens || usage.outputTokens)) msg.usage = usage;
      const err = errorOf(m.error);
      if (err) msg.error = err;
      return msg;
    }
    case "compaction":
      return {
        id,
        sessionId,
        role: "assistant",
        createdAt,
        completedAt: createdAt,
        summary: true,
        blocks: [
          { id: `${id}-compaction`, kind: "notice", level: "info", code: "compaction", text: "Conversation compacted" },
          ...(str(m.summary) ? [{ id: `${id}-summary`, kind: "text" as const, text: str(m.summary)! }] : []),
        ],
      };
    case "shell": {
      const b: ToolBlock = {
        id: str(m.callID) ?? `${id}-shell`,
        kind: "tool",
        callId: str(m.callID) ?? id,
        tool: "bash",
        rawTool: "shell",
        status: num(time.completed) ? "completed" : "running",
        input: { command: str(m.command) ?? "" },
        output: str(m.output) ?? "",
      };
      return {
        id,
        sessionId,
        role: "assistant",
        createdAt,
        ...(num(time.completed) ? { completedAt: num(time.completed)! } : {}),
        blocks: [b],
      };
    }
    default:
      return null;
  }
}

/**
 * A session's usage as the sum of its assistant messages' (tokens and cost; the context in use is
 * the newest message's, read by the view). 1.18's `/api` reports a session's own `tokens` and `cost`
 * as zero however much it ran, while each message and `step.ended` frame carries its own: the
 * console adds those up, as V1's session totals do. Undefined when nothing has used any tokens.
 */
export function sumApiUsage(usages: Iterable<Usage>): Usage | undefined {
  let out: Usage | undefined;
  for (const u of usages) {
    const o: Usage = out ?? { inputTokens: 0, outputTokens: 0 };
    o.inputTokens += u.inputTokens;
    o.outputTokens += u.outputTokens;
    if (u.reasoningTokens) o.reasoningTokens = (o.reasoningTokens ?? 0) + u.reasoningTokens;
    if (u.cacheReadTokens) o.cacheReadTokens = (o.cacheReadTokens ?? 0) + u.cacheReadTokens;
    if (u.cacheWriteTokens) o.cacheWriteTokens = (o.cacheWriteTokens ?? 0) + u.cacheWriteTokens;
    if (u.costUsd !== undefined) o.costUsd = (o.costUsd ?? 0) + u.costUsd;
    out = o;
  }
  return out && (out.inputTokens || out.outputTokens) ? out : undefined;
}

/** The files an assistant turn changed, as V2 reports them (paths only). */
export function apiMessageFiles(raw: unknown): string[] {
  return arr(obj(obj(raw).snapshot).files).filter((f): f is string => typeof f === "string");
}

/* ------------------------------------------------------------------------------ interrupts */

export function toApiPermission(p: ApiPermission, now = Date.now()): Interrupt {
  const meta = obj(p.metadata);
  const patterns = p.resources;
  const subject = str(meta.command) ?? patterns.join(", ");
  const path = str(meta.filepath);
  const diff = str(meta.diff);
  const it: Interrupt = {
    id: p.id,
    sessionId: p.sessionID,
    kind: "permission",
    createdAt: now,
    title: subject ? `${p.action}: ${subject}` : p.action,
    permission: {
      action: p.action,
      patterns,
      ...(p.save?.length ? { always: p.save } : {}),
      ...(path ? { path } : {}),
      ...(diff && diff.length <= 200_000 ? { diff } : {}),
      options: [
        { id: "once", label: "Allow once", kind: "allow_once" },
        { id: "always", label: "Always allow (saved rule)", kind: "allow_always" },
        { id: "reject", label: "Reject", kind: "reject" },
      ],
    },
  };
  if (p.source) {
    it.toolCallId = p.source.callID;
    it.messageId = p.source.messageID;
  }
  return it;
}

export function toApiQuestion(q: ApiQuestion, now = Date.now()): Interrupt | null {
  return toQuestionInterrupt(q, now);
}

/* ------------------------------------------------------------------------------ catalog */

export function toApiModelList(
  models: components["schemas"]["ModelV2Info"][],
  providers: components["schemas"]["ProviderV2Info"][],
  defaultModel?: { provider: string; id: string },
): ModelList {
  const names = new Map(providers.map((p) => [p.id, p.name]));
  const items: ModelInfo[] = models
    .filter((m) => m.enabled && names.has(m.providerID))
    .map((m) => ({
      provider: m.providerID,
      providerLabel: names.get(m.providerID) ?? m.providerID,
      id: m.id,
      label: m.name,
      ...(m.limit.context ? { contextWindow: m.limit.context } : {}),
    }));
  const def =
    defaultModel && items.some((m) => m.provider === defaultModel.provider && m.id === defaultModel.id)
      ? defaultModel
      : items[0]
        ? { provider: items[0].provider, id: items[0].id }
        : undefined;
  for (const m of items) if (def && m.provider === def.provider && m.id === def.id) m.isDefault = true;
  return { items, ...(def ? { default: def } : {}) };
}

export function toApiAgentList(agents: components["schemas"]["AgentV2Info"][]): AgentList {
  const items = agents
    .filter((a) => !a.hidden && (a.mode === "primary" || a.mode === "all"))
    .map((a) => ({
      id: a.id,
      label: a.id.charAt(0).toUpperCase() + a.id.slice(1),
      ...(a.description ? { description: a.description } : {}),
    }));
  return {
    items,
    ...(items.some((a) => a.id === "build") ? { default: "build" } : items[0] ? { default: items[0].id } : {}),
  };
}

export function toApiFileDiffs(files: components["schemas"]["FileDiff"][] | undefined): FileDiff[] {
  return (files ?? []).map((f) => ({
    path: f.path,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    patch: f.patch,
  }));
}
