/**
 * OpenCode → canonical model. Pure functions, fed in tests with the real captures. Upstream frames
 * are untrusted: every accessor is defensive and a malformed frame yields nothing, never a throw.
 */
import type {
  Block,
  FileChange,
  FileDiff,
  Interrupt,
  Message,
  MessageError,
  MessageInfo,
  Session,
  SessionStatus,
  TimelineEvent,
  Todo,
  ToolBlock,
  ToolName,
  ToolStatus,
  Usage,
} from "@/lib/model";
import type { AgentList, ModelInfo, ModelList } from "@/lib/api";

import { canonicalTool } from "../shared/tool-names";
import { isObj, obj, str, num, arr, type Obj } from "../shared/values";

export interface Normalized {
  sessionId: string;
  event: TimelineEvent;
}

/* ------------------------------------------------------------------------------ sessions */

export function toUsage(tokens: unknown, cost?: unknown): Usage | undefined {
  const t = obj(tokens);
  const input = num(t.input);
  const output = num(t.output);
  if (input === undefined && output === undefined) return undefined;
  const cache = obj(t.cache);
  const u: Usage = { inputTokens: input ?? 0, outputTokens: output ?? 0 };
  const reasoning = num(t.reasoning);
  if (reasoning) u.reasoningTokens = reasoning;
  const cr = num(cache.read);
  if (cr) u.cacheReadTokens = cr;
  const cw = num(cache.write);
  if (cw) u.cacheWriteTokens = cw;
  const c = num(cost);
  if (c !== undefined) u.costUsd = c;
  return u;
}

export function toSession(raw: unknown, backendId: string, status: SessionStatus = "idle"): Session | null {
  const s = obj(raw);
  const id = str(s.id);
  if (!id) return null;
  const time = obj(s.time);
  const created = num(time.created) ?? Date.now();
  const out: Session = {
    id,
    backendId,
    title: str(s.title) ?? "Untitled",
    createdAt: created,
    updatedAt: num(time.updated) ?? created,
    status,
  };
  const dir = str(s.directory);
  if (dir) out.directory = dir;
  const parent = str(s.parentID);
  if (parent) out.parentId = parent;
  const model = obj(s.model);
  if (str(model.id))
    out.model = { id: str(model.id)!, ...(str(model.providerID) ? { provider: str(model.providerID)! } : {}) };
  const usage = toUsage(s.tokens, s.cost);
  if (usage) out.usage = usage;
  const revert = obj(s.revert);
  if (str(revert.messageID))
    out.revert = { messageId: str(revert.messageID)!, ...(str(revert.diff) ? { diff: str(revert.diff)! } : {}) };
  const share = obj(s.share);
  if (str(share.url)) out.share = { url: str(share.url)! };
  return out;
}

export function toStatus(raw: unknown): { status: SessionStatus; detail?: string } {
  const s = obj(raw);
  switch (str(s.type)) {
    case "busy":
      return { status: "busy" };
    case "retry": {
      const attempt = num(s.attempt);
      const next = num(s.next);
      const msg = str(s.message) ?? "retrying";
      const when = next ? `, next attempt at ${new Date(next).toISOString()}` : "";
      return { status: "retry", detail: `${msg} (attempt ${attempt ?? "?"}${when})` };
    }
    default:
      return { status: "idle" };
  }
}

/* ------------------------------------------------------------------------------ messages */

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

function toolStatus(status: string | undefined, error: string | undefined): ToolStatus {
  switch (status) {
    case "pending":
      return "pending";
    case "running":
      return "running";
    case "completed":
      return "completed";
    case "error": {
      const e = (error ?? "").toLowerCase();
      if (e.includes("rejected permission") || e.includes("permission denied") || e.includes("dismissed this question"))
        return "denied";
      if (e.includes("aborted") || e.includes("interrupted")) return "cancelled";
      return "error";
    }
    default:
      return "pending";
  }
}

export function toToolBlock(p: Obj): ToolBlock | null {
  const id = str(p.id);
  const callId = str(p.callID) ?? id;
  const rawTool = str(p.tool) ?? "tool";
  if (!id || !callId) return null;
  const state = obj(p.state);
  const meta = obj(state.metadata);
  const error = str(state.error);
  const status = toolStatus(str(state.status), error);
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

/* ------------------------------------------------------------------------------ interrupts */

/** A permission's diff larger than this is left out (the card still shows the file). */
const MAX_PERMISSION_DIFF = 256 * 1024;

export function toPermissionInterrupt(raw: unknown, now = Date.now()): Interrupt | null {
  const p = obj(raw);
  const id = str(p.id);
  const sessionId = str(p.sessionID);
  if (!id || !sessionId) return null;
  const action = str(p.permission) ?? "permission";
  const patterns = arr(p.patterns).filter((x): x is string => typeof x === "string");
  const always = arr(p.always).filter((x): x is string => typeof x === "string");
  const tool = obj(p.tool);
  const meta = obj(p.metadata);
  const subject = str(meta.command) ?? patterns.join(", ");
  // Edits carry the file and the diff they would apply: the card shows it before anyone decides.
  const path = str(meta.filepath);
  const diff = str(meta.diff);
  const it: Interrupt = {
    id,
    sessionId,
    kind: "permission",
    createdAt: now,
    title: subject ? `${action}: ${subject}` : action,
    permission: {
      action,
      patterns,
      ...(always.length ? { always } : {}),
      ...(path ? { path } : {}),
      ...(diff && diff.length <= MAX_PERMISSION_DIFF ? { diff } : {}),
      options: [
        { id: "once", label: "Allow once", kind: "allow_once" },
        { id: "always", label: "Always allow", kind: "allow_always" },
        { id: "reject", label: "Reject", kind: "reject" },
      ],
    },
  };
  if (str(tool.callID)) it.toolCallId = str(tool.callID)!;
  if (str(tool.messageID)) it.messageId = str(tool.messageID)!;
  return it;
}

export function toQuestionInterrupt(raw: unknown, now = Date.now()): Interrupt | null {
  const q = obj(raw);
  const id = str(q.id);
  const sessionId = str(q.sessionID);
  if (!id || !sessionId) return null;
  const questions = arr(q.questions).map((x) => {
    const o = obj(x);
    return {
      question: str(o.question) ?? "",
      ...(str(o.header) ? { header: str(o.header)! } : {}),
      options: arr(o.options).map((op) => {
        const oo = obj(op);
        return { label: str(oo.label) ?? "", ...(str(oo.description) ? { description: str(oo.description)! } : {}) };
      }),
      ...(o.multiple === true ? { multiple: true } : {}),
      // OpenCode accepts a typed answer unless the question says otherwise.
      custom: o.custom !== false,
    };
  });
  const tool = obj(q.tool);
  const first = questions[0];
  const it: Interrupt = {
    id,
    sessionId,
    kind: "question",
    createdAt: now,
    title: first ? (first.header ? `${first.header}: ${first.question}` : first.question) : "Question",
    questions,
  };
  if (str(tool.callID)) it.toolCallId = str(tool.callID)!;
  if (str(tool.messageID)) it.messageId = str(tool.messageID)!;
  return it;
}

export function toTodos(raw: unknown): Todo[] {
  return arr(raw).flatMap((t) => {
    const o = obj(t);
    const content = str(o.content);
    if (!content) return [];
    return [
      { content, status: str(o.status) ?? "pending", ...(str(o.priority) ? { priority: str(o.priority)! } : {}) },
    ];
  });
}

/* ------------------------------------------------------------------------------ events */

/** Unwraps a `/global/event` frame (`{directory, payload}`) or passes a `/event` frame through. */
export function unwrapFrame(raw: unknown): { type: string; properties: Obj; directory?: string } | null {
  const f = obj(raw);
  const payload = isObj(f.payload) ? f.payload : f;
  const type = str(payload.type);
  if (!type) return null;
  const dir = str(f.directory);
  return { type, properties: obj(payload.properties), ...(dir ? { directory: dir } : {}) };
}

/**
 * One OpenCode event → canonical events. `backendId` stamps sessions; `statusOf` gives the live
 * status so a `session.updated` keeps it. Unknown and noise events yield [].
 */
export function normalizeEvent(type: string, props: Obj, backendId: string, now = Date.now()): Normalized[] {
  const sessionId = str(props.sessionID);
  switch (type) {
    case "session.created":
    case "session.updated": {
      const s = toSession(props.info, backendId);
      return s ? [{ sessionId: s.id, event: { type: "session.updated", session: s } }] : [];
    }
    case "session.status": {
      if (!sessionId) return [];
      const st = toStatus(props.status);
      return [
        {
          sessionId,
          event: { type: "session.status", status: st.status, ...(st.detail ? { detail: st.detail } : {}) },
        },
      ];
    }
    case "session.error": {
      if (!sessionId) return [];
      const err = toMessageError(props.error);
      if (!err || err.aborted) return [];
      return [{ sessionId, event: { type: "error", message: err.message, code: err.name } }];
    }
    case "message.updated": {
      const info = toMessageInfo(props.info);
      return info ? [{ sessionId: info.sessionId, event: { type: "message.updated", message: info } }] : [];
    }
    case "message.removed": {
      const messageId = str(props.messageID);
      return sessionId && messageId ? [{ sessionId, event: { type: "message.removed", messageId } }] : [];
    }
    case "message.part.updated": {
      const part = obj(props.part);
      const sid = str(part.sessionID) ?? sessionId;
      const messageId = str(part.messageID);
      if (!sid || !messageId) return [];
      const block = toBlock(part);
      return block ? [{ sessionId: sid, event: { type: "block.updated", messageId, block } }] : [];
    }
    case "message.part.removed": {
      const messageId = str(props.messageID);
      const blockId = str(props.partID);
      return sessionId && messageId && blockId
        ? [{ sessionId, event: { type: "block.removed", messageId, blockId } }]
        : [];
    }
    case "message.part.delta": {
      const messageId = str(props.messageID);
      const blockId = str(props.partID);
      const delta = str(props.delta);
      if (!sessionId || !messageId || !blockId || delta === undefined || str(props.field) !== "text") return [];
      return [{ sessionId, event: { type: "block.delta", messageId, blockId, field: "text", delta } }];
    }
    case "todo.updated":
      return sessionId ? [{ sessionId, event: { type: "todo.updated", todos: toTodos(props.todos) } }] : [];
    case "permission.asked": {
      const it = toPermissionInterrupt(props, now);
      return it ? [{ sessionId: it.sessionId, event: { type: "interrupt.requested", interrupt: it } }] : [];
    }
    case "question.asked": {
      const it = toQuestionInterrupt(props, now);
      return it ? [{ sessionId: it.sessionId, event: { type: "interrupt.requested", interrupt: it } }] : [];
    }
    case "permission.replied": {
      const id = str(props.requestID) ?? str(props.permissionID);
      return sessionId && id
        ? [
            {
              sessionId,
              event: {
                type: "interrupt.resolved",
                interruptId: id,
                outcome: str(props.reply) ?? str(props.response) ?? "replied",
              },
            },
          ]
        : [];
    }
    case "question.replied":
    case "question.rejected": {
      const id = str(props.requestID);
      return sessionId && id
        ? [
            {
              sessionId,
              event: {
                type: "interrupt.resolved",
                interruptId: id,
                outcome: type === "question.replied" ? "answered" : "rejected",
              },
            },
          ]
        : [];
    }
    default:
      return [];
  }
}

/**
 * A reply cut off by the server's death, as read back from the server, with the text the console
 * showed live kept: OpenCode 1.x streams a text part's deltas as events and stores its text only
 * when the part ends, so the stored copy of a cut reply has empty (or shorter) text and reasoning
 * blocks. A shown block wins where the stored one is a prefix of it; shown blocks the server never
 * stored are kept after the stored ones, in the order they were shown.
 */
export function keepShownText(stored: Message, shown: Message): Message {
  const isProse = (b: Message["blocks"][number]) => b.kind === "text" || b.kind === "reasoning";
  const shownById = new Map(shown.blocks.filter(isProse).map((b) => [b.id, b]));
  const storedIds = new Set(stored.blocks.map((b) => b.id));
  const blocks = stored.blocks.map((b) => {
    const seen = shownById.get(b.id);
    if (!seen || seen.kind !== b.kind || !("text" in b) || !("text" in seen)) return b;
    return seen.text.length > b.text.length && seen.text.startsWith(b.text) ? { ...b, text: seen.text } : b;
  });
  const unstored = shown.blocks.filter((b) => isProse(b) && !storedIds.has(b.id));
  if (!unstored.length && blocks.every((b, i) => b === stored.blocks[i])) return stored;
  return { ...stored, blocks: [...blocks, ...unstored] };
}

/**
 * In an idle session nothing can still be running: a tool left `pending`/`running` (OpenCode was
 * killed mid-turn and its database kept the part as it was) is shown as cancelled, with why.
 */
export function settleIdle(messages: Message[], cutOff?: MessageError): Message[] {
  return messages.map((m) => {
    // A reply with neither a completion time nor an error in an idle session was cut off: OpenCode
    // stamps `time.completed` on every reply it ends, aborted and failed ones included.
    const unfinished = cutOff && m.role === "assistant" && m.completedAt === undefined && !m.error;
    if (!unfinished && !m.blocks.some((b) => b.kind === "tool" && (b.status === "running" || b.status === "pending")))
      return m;
    return {
      ...m,
      ...(unfinished ? { error: { ...cutOff } } : {}),
      blocks: m.blocks.map((b) =>
        b.kind === "tool" && (b.status === "running" || b.status === "pending")
          ? {
              ...b,
              status: "cancelled" as const,
              error: b.error ?? "Interrupted: the backend stopped before this tool finished",
            }
          : b,
      ),
    };
  });
}

/* ------------------------------------------------------------------------------ models, agents */

/**
 * `GET /config/providers` → the model list, each with its context window where known. The default
 * is the configured `model` ("provider/id" from `GET /config`) when it is listed — OpenCode's
 * per-provider defaults are its own ranking, not what a new session uses — else the first
 * provider's default.
 */
export function toModelList(raw: unknown, config?: unknown): ModelList {
  const r = obj(raw);
  const defaults = obj(r.default);
  const items: ModelInfo[] = [];
  for (const p of arr(r.providers)) {
    const po = obj(p);
    const provider = str(po.id);
    if (!provider) continue;
    for (const [key, m] of Object.entries(obj(po.models))) {
      const mo = obj(m);
      const id = str(mo.id) ?? key;
      const context = num(obj(mo.limit).context);
      items.push({
        provider,
        providerLabel: str(po.name) ?? provider,
        id,
        label: str(mo.name) ?? id,
        ...(context ? { contextWindow: context } : {}),
      });
    }
  }
  const configured = str(obj(config).model);
  const slash = configured?.indexOf("/") ?? -1;
  let def: { provider: string; id: string } | undefined =
    configured && slash > 0 ? { provider: configured.slice(0, slash), id: configured.slice(slash + 1) } : undefined;
  if (def && !items.some((m) => m.provider === def!.provider && m.id === def!.id)) def = undefined;
  if (!def) {
    const first = Object.entries(defaults).find(([, v]) => typeof v === "string");
    if (first) def = { provider: first[0], id: first[1] as string };
  }
  for (const m of items) if (def && m.provider === def.provider && m.id === def.id) m.isDefault = true;
  return { items, ...(def ? { default: def } : {}) };
}

/** `GET /agent` → the agents a prompt can pick: visible primary ones (build, plan …). */
export function toAgentList(raw: unknown): AgentList {
  const items = arr(raw).flatMap((a) => {
    const o = obj(a);
    const name = str(o.name);
    const mode = str(o.mode);
    if (!name || o.hidden === true || (mode !== "primary" && mode !== "all")) return [];
    const description = str(o.description);
    return [{ id: name, label: name.charAt(0).toUpperCase() + name.slice(1), ...(description ? { description } : {}) }];
  });
  return {
    items,
    ...(items.some((a) => a.id === "build") ? { default: "build" } : items[0] ? { default: items[0].id } : {}),
  };
}
