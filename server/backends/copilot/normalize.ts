/**
 * Copilot CLI headless events (`session.event` notifications, and the persisted events
 * `session.getMessages` returns) → canonical timeline events (lib/model.ts). Pure and defensive: no
 * I/O, no clock (times come from the events), one `CopilotTimeline` per session keeps what a
 * mapping needs across events. A malformed or unknown event yields nothing and never throws.
 *
 * Ids are taken from the events so a live session and one reloaded from history agree:
 * - a user message is its `user.message` event id (which is also its rewind point);
 * - an assistant message is one model call, `assistant.turn_start` … `assistant.turn_end`, with the
 *   turn_start event's id; its text block is `text:<messageId>`, its reasoning
 *   `<assistant id>:reasoning`, its tools `tool:<toolCallId>`;
 * - interrupts are `perm_<requestId>`, `ask_<requestId>`, `form_<requestId>`.
 *
 * Protocol notes: docs/backends/copilot.md; fixtures: ./fixtures (real transcripts of the CLI).
 */
import type {
  Block,
  InputField,
  InputSchema,
  Interrupt,
  Message,
  MessageError,
  MessageInfo,
  Session,
  TimelineEvent,
  ToolBlock,
  ToolName,
  ToolStatus,
  Usage,
} from "@/lib/model";
import { applyAll, emptyState } from "@/lib/timeline/reducer";
import { canonicalTool, TOOL_NAMES } from "../shared/tool-names";
import { arr, isObj, num, obj, str, type Obj } from "../shared/values";

/** One event of a Copilot session, as far as the mapping relies on it. */
export interface CopilotEvent {
  id: string;
  type: string;
  timestamp: number;
  data: Obj;
  ephemeral: boolean;
  /** Set for events of a subagent (not shown in the root timeline). */
  agentId?: string;
}

/** A `session.event` event (or an entry of `session.getMessages`), or undefined when it is not one. */
export function parseEvent(raw: unknown): CopilotEvent | undefined {
  if (!isObj(raw)) return undefined;
  const id = str(raw.id);
  const type = str(raw.type);
  if (!id || !type) return undefined;
  const ts = Date.parse(str(raw.timestamp) ?? "");
  const agentId = str(raw.agentId);
  return {
    id,
    type,
    timestamp: Number.isFinite(ts) ? ts : 0,
    data: obj(raw.data),
    ephemeral: raw.ephemeral === true,
    ...(agentId ? { agentId } : {}),
  };
}

/** The `{sessionId, event}` of a `session.event` notification. */
export function parseSessionEvent(params: unknown): { sessionId: string; event: CopilotEvent } | undefined {
  const p = obj(params);
  const sessionId = str(p.sessionId);
  const event = parseEvent(p.event);
  return sessionId && event ? { sessionId, event } : undefined;
}

/* ------------------------------------------------------------------------------------- tools */

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

/* ------------------------------------------------------------------------------------- interrupts */

const PERMISSION_OUTCOMES: Readonly<Record<string, string>> = {
  approved: "allow_once",
  "approve-once": "allow_once",
  "approved-for-session": "allow_always",
  "approve-for-session": "allow_always",
  "approved-for-location": "allow_always",
  "approve-permanently": "allow_always",
  "denied-interactively-by-user": "reject",
  reject: "reject",
  cancelled: "cancelled",
  "user-not-available": "cancelled",
};

function basename(p: string): string {
  return p.split("/").filter(Boolean).at(-1) ?? p;
}

function clip(s: string, n = 120): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** A `permission.requested` event → a permission interrupt (undefined when a hook already decided it). */
export function permissionInterrupt(sessionId: string, ev: CopilotEvent): Interrupt | undefined {
  const d = ev.data;
  const requestId = str(d.requestId);
  if (!requestId || d.resolvedByHook === true) return undefined;
  const req = obj(d.permissionRequest);
  const prompt = obj(d.promptRequest);
  const kind = str(req.kind) ?? str(prompt.kind) ?? "unknown";
  const toolCallId = str(req.toolCallId) ?? str(prompt.toolCallId);
  const intention = str(req.intention) ?? str(prompt.intention);
  let action = kind;
  let patterns: string[] = [];
  let title = intention ?? `Permission: ${kind}`;
  let path: string | undefined;
  let diff: string | undefined;
  switch (kind) {
    case "shell": {
      const cmd = str(req.fullCommandText) ?? str(prompt.fullCommandText) ?? "";
      action = "bash";
      patterns = cmd ? [cmd] : [];
      title = `Run ${clip(cmd || intention || "a command")}`;
      break;
    }
    case "write": {
      const file = str(req.fileName) ?? str(prompt.fileName) ?? "";
      action = "edit";
      patterns = file ? [file] : [];
      title = `${intention ?? "Edit file"}: ${basename(file)}`;
      path = file || undefined;
      const d0 = str(req.diff) ?? str(prompt.diff);
      diff = d0 ? d0.replace(/^\n+/, "") : undefined;
      break;
    }
    case "read": {
      const file = str(req.path) ?? str(prompt.path) ?? "";
      action = "read";
      patterns = file ? [file] : [];
      title = `Read ${basename(file) || "a file"}`;
      break;
    }
    case "mcp": {
      const server = str(req.serverName) ?? str(prompt.serverName) ?? "mcp";
      const tool = str(req.toolTitle) ?? str(prompt.toolTitle) ?? str(prompt.toolName) ?? str(req.toolName) ?? "a tool";
      action = "mcp";
      patterns = [`${server}: ${str(prompt.toolName) ?? str(req.toolName) ?? tool}`];
      title = `Use ${tool} (${server})`;
      break;
    }
    case "url": {
      const url = str(req.url) ?? str(prompt.url) ?? "";
      action = "webfetch";
      patterns = url ? [url] : [];
      title = `Fetch ${clip(url)}`;
      break;
    }
    case "custom-tool": {
      const tool = str(req.toolName) ?? "a tool";
      action = tool;
      patterns = [tool];
      title = `Use ${tool}`;
      break;
    }
    default:
      patterns = intention ? [intention] : [kind];
  }
  const session = req.canOfferSessionApproval === true || prompt.canOfferSessionApproval === true;
  return {
    id: `perm_${requestId}`,
    sessionId,
    kind: "permission",
    ...(toolCallId ? { toolCallId } : {}),
    createdAt: ev.timestamp,
    title,
    permission: {
      action,
      patterns,
      options: [
        { id: "approve-once", label: "Allow once", kind: "allow_once" },
        ...(session
          ? [{ id: "approve-for-session", label: "Allow for this session", kind: "allow_always" as const }]
          : []),
        { id: "reject", label: "Reject", kind: "reject" },
      ],
      ...(path ? { path } : {}),
      ...(diff ? { diff } : {}),
    },
  };
}

/** A `user_input.requested` event (or the `userInput.request` params) → a question interrupt. */
export function questionInterrupt(sessionId: string, id: string, data: Obj, createdAt: number): Interrupt | undefined {
  const question = str(data.question);
  if (!question) return undefined;
  const choices = arr(data.choices).filter((c): c is string => typeof c === "string");
  const toolCallId = str(data.toolCallId);
  return {
    id,
    sessionId,
    kind: "question",
    ...(toolCallId ? { toolCallId } : {}),
    createdAt,
    title: clip(question),
    // Copilot's ask_user takes one answer: a choice, or free text when allowed (the default).
    questions: [
      {
        question,
        options: choices.map((label) => ({ label })),
        custom: data.allowFreeform !== false || choices.length === 0,
      },
    ],
  };
}

const FORMATS = new Set(["email", "uri", "date", "date-time"]);

/**
 * MCP's `requestedSchema` → the form schema the console renders (lib/model.ts `InputSchema`).
 * Strings (with `enum`/`enumNames`, or titled `oneOf: [{const, title}]`, and a format), numbers,
 * integers and booleans are kept; other fields (arrays, objects) cannot be filled in here and are
 * left out. Undefined when nothing is left.
 */
export function toInputSchema(raw: unknown): InputSchema | undefined {
  const s = obj(raw);
  const props = obj(s.properties);
  const required = new Set(arr(s.required).filter((r): r is string => typeof r === "string"));
  const properties: Record<string, InputField> = {};
  for (const [name, v] of Object.entries(props)) {
    const p = obj(v);
    const type = str(p.type);
    if (type !== "string" && type !== "number" && type !== "integer" && type !== "boolean") continue;
    const f: InputField = { type };
    const title = str(p.title);
    const description = str(p.description);
    if (title) f.title = title;
    if (description) f.description = description;
    if (type === "string") {
      const en = arr(p.enum).filter((x): x is string => typeof x === "string");
      const oneOf = arr(p.oneOf)
        .map(obj)
        .filter((o) => typeof o.const === "string");
      if (en.length > 0) {
        f.enum = en;
        const names = arr(p.enumNames).filter((x): x is string => typeof x === "string");
        if (names.length === en.length) f.enumNames = names;
      } else if (oneOf.length > 0) {
        f.enum = oneOf.map((o) => o.const as string);
        f.enumNames = oneOf.map((o) => str(o.title) ?? (o.const as string));
      }
      const format = str(p.format);
      if (format && FORMATS.has(format)) f.format = format as NonNullable<InputField["format"]>;
      const minLength = num(p.minLength);
      const maxLength = num(p.maxLength);
      if (minLength !== undefined && Number.isInteger(minLength) && minLength >= 0) f.minLength = minLength;
      if (maxLength !== undefined && Number.isInteger(maxLength) && maxLength >= 0) f.maxLength = maxLength;
    } else if (type !== "boolean") {
      const minimum = num(p.minimum);
      const maximum = num(p.maximum);
      if (minimum !== undefined) f.minimum = minimum;
      if (maximum !== undefined) f.maximum = maximum;
    }
    const def = p.default;
    if (
      (type === "boolean" && typeof def === "boolean") ||
      (type === "string" && typeof def === "string") ||
      ((type === "number" || type === "integer") && typeof def === "number")
    )
      f.default = def;
    properties[name] = f;
  }
  if (Object.keys(properties).length === 0) return undefined;
  const req = [...required].filter((r) => r in properties);
  return { type: "object", properties, ...(req.length ? { required: req } : {}) };
}

/** An `elicitation.requested` event → an input interrupt (a form, or for `mode: "url"` a prompt with the link). */
export function formInterrupt(sessionId: string, ev: CopilotEvent): Interrupt | undefined {
  const d = ev.data;
  const requestId = str(d.requestId);
  const message = str(d.message) ?? "";
  if (!requestId) return undefined;
  const toolCallId = str(d.toolCallId);
  const url = str(d.url);
  const schema = str(d.mode) === "url" ? undefined : toInputSchema(d.requestedSchema);
  const source = str(d.elicitationSource);
  return {
    id: `form_${requestId}`,
    sessionId,
    kind: "input",
    ...(toolCallId ? { toolCallId } : {}),
    createdAt: ev.timestamp,
    title: clip(message || `${source ?? "A tool"} asks for input`),
    input: { prompt: url ? `${message}\n${url}`.trim() : message, ...(schema ? { schema } : {}) },
  };
}

/* ------------------------------------------------------------------------------------- the timeline */

interface OpenTool {
  messageId: string;
  block: ToolBlock;
}

/**
 * The per-session mapping. `apply` takes one event and returns the canonical events it means;
 * `session` is the session as the events describe it (title, model, directory).
 */
export class CopilotTimeline {
  session: Session;
  /** The user message of the running (or last) interaction. */
  private userId: string | undefined;
  /** The assistant message (model call) in progress. */
  private assistant: MessageInfo | undefined;
  /** The last assistant message of the interaction (for an abort or an error after its turn_end). */
  private lastAssistant: MessageInfo | undefined;
  private texts = new Map<string, { messageId: string; text: string }>();
  private reasoning = new Map<string, { messageId: string; block: Extract<Block, { kind: "reasoning" }> }>();
  private tools = new Map<string, OpenTool>();
  private totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  private context: { tokens: number; window: number } | undefined;
  /** True between a user message and `session.idle`. */
  busy = false;

  constructor(session: Session) {
    this.session = session;
  }

  /** The canonical events of one Copilot event (none for events the timeline does not show). */
  apply(ev: CopilotEvent): TimelineEvent[] {
    try {
      // Subagents' own events (agentId) belong to their task, not to the root timeline.
      if (ev.agentId) return [];
      return this.map(ev);
    } catch {
      return [];
    }
  }

  private map(ev: CopilotEvent): TimelineEvent[] {
    const d = ev.data;
    switch (ev.type) {
      case "session.start": {
        const ctx = obj(d.context);
        const model = str(d.selectedModel);
        const cwd = str(ctx.cwd);
        const created = Date.parse(str(d.startTime) ?? "");
        return this.updateSession({
          ...(model ? { model: { id: model } } : {}),
          ...(cwd && !this.session.directory ? { directory: cwd } : {}),
          ...(Number.isFinite(created) ? { createdAt: created } : {}),
        });
      }
      case "session.title_changed": {
        const title = str(d.title)?.trim();
        return title ? this.updateSession({ title }) : [];
      }
      case "session.model_change": {
        const model = str(d.newModel);
        return model ? this.updateSession({ model: { id: model } }) : [];
      }
      case "user.message":
        return this.userMessage(ev);
      case "assistant.turn_start":
        return this.turnStart(ev);
      case "assistant.turn_end":
        return this.turnEnd(ev);
      case "assistant.reasoning_delta":
        return this.reasoningDelta(ev);
      case "assistant.reasoning":
        return this.reasoningFinal(ev);
      case "assistant.message_start": {
        const id = str(d.messageId);
        const m = this.ensureAssistant(ev);
        if (!id || this.texts.has(id)) return m.events;
        this.texts.set(id, { messageId: m.info.id, text: "" });
        return [
          ...m.events,
          { type: "block.updated", messageId: m.info.id, block: { id: `text:${id}`, kind: "text", text: "" } },
        ];
      }
      case "assistant.message_delta": {
        const id = str(d.messageId);
        const delta = str(d.deltaContent);
        const t = id ? this.texts.get(id) : undefined;
        if (!id || !delta) return [];
        if (!t) {
          const m = this.ensureAssistant(ev);
          this.texts.set(id, { messageId: m.info.id, text: delta });
          return [
            ...m.events,
            { type: "block.updated", messageId: m.info.id, block: { id: `text:${id}`, kind: "text", text: delta } },
          ];
        }
        t.text += delta;
        return [{ type: "block.delta", messageId: t.messageId, blockId: `text:${id}`, field: "text", delta }];
      }
      case "assistant.message":
        return this.assistantMessage(ev);
      case "assistant.usage":
        return this.usage(ev);
      case "session.usage_info": {
        const tokens = num(d.currentTokens);
        const window = num(d.tokenLimit);
        if (tokens === undefined || window === undefined) return [];
        this.context = { tokens, window };
        return [{ type: "usage.updated", usage: this.sessionUsage() }];
      }
      case "tool.execution_start":
        return this.toolStart(ev);
      case "tool.execution_progress": {
        const t = this.tools.get(str(d.toolCallId) ?? "");
        const msg = str(d.progressMessage);
        if (!t || !msg || t.block.status !== "running") return [];
        return this.setTool(t, { ...t.block, title: clip(msg, 160) });
      }
      case "tool.execution_partial_result": {
        // The output so far (Copilot repeats it whole), not a delta.
        const t = this.tools.get(str(d.toolCallId) ?? "");
        const out = str(d.partialOutput);
        if (!t || out === undefined || t.block.output === out) return [];
        return this.setTool(t, { ...t.block, output: out });
      }
      case "tool.execution_complete":
        return this.toolComplete(ev);
      case "permission.requested": {
        const it = permissionInterrupt(this.session.id, ev);
        return it ? [{ type: "interrupt.requested", interrupt: it }] : [];
      }
      case "permission.completed": {
        const requestId = str(d.requestId);
        if (!requestId) return [];
        const kind = str(obj(d.result).kind) ?? "answered";
        return [
          { type: "interrupt.resolved", interruptId: `perm_${requestId}`, outcome: PERMISSION_OUTCOMES[kind] ?? kind },
        ];
      }
      case "user_input.requested": {
        const requestId = str(d.requestId);
        const it = requestId ? questionInterrupt(this.session.id, `ask_${requestId}`, d, ev.timestamp) : undefined;
        return it ? [{ type: "interrupt.requested", interrupt: it }] : [];
      }
      case "user_input.completed": {
        const requestId = str(d.requestId);
        return requestId ? [{ type: "interrupt.resolved", interruptId: `ask_${requestId}`, outcome: "answered" }] : [];
      }
      case "elicitation.requested": {
        const it = formInterrupt(this.session.id, ev);
        return it ? [{ type: "interrupt.requested", interrupt: it }] : [];
      }
      case "elicitation.completed": {
        const requestId = str(d.requestId);
        const action = str(d.action) ?? "answered";
        return requestId ? [{ type: "interrupt.resolved", interruptId: `form_${requestId}`, outcome: action }] : [];
      }
      case "session.compaction_complete":
        return this.compaction(ev);
      case "session.error":
        return this.fail(ev, { name: str(d.errorType) ?? "Error", message: str(d.message) ?? "The turn failed" });
      case "abort":
        return this.fail(ev, { name: "Aborted", message: "Stopped", aborted: true });
      case "session.idle":
        return this.idle(ev.timestamp);
      default:
        return [];
    }
  }

  private updateSession(patch: Partial<Session>): TimelineEvent[] {
    const next: Session = { ...this.session, ...patch };
    if (JSON.stringify(next) === JSON.stringify(this.session)) return [];
    this.session = next;
    return [{ type: "session.updated", session: next }];
  }

  private userMessage(ev: CopilotEvent): TimelineEvent[] {
    const text = str(ev.data.content) ?? "";
    this.userId = ev.id;
    this.assistant = undefined;
    this.lastAssistant = undefined;
    const info: MessageInfo = { id: ev.id, sessionId: this.session.id, role: "user", createdAt: ev.timestamp };
    const events: TimelineEvent[] = [
      { type: "message.updated", message: info },
      { type: "block.updated", messageId: ev.id, block: { id: `${ev.id}:text`, kind: "text", text } },
    ];
    for (const [i, a] of arr(ev.data.attachments).map(obj).entries()) {
      const name = str(a.displayName) ?? str(a.path) ?? str(a.type) ?? "attachment";
      events.push({
        type: "block.updated",
        messageId: ev.id,
        block: {
          id: `${ev.id}:file:${i}`,
          kind: "file",
          name,
          mime: str(a.mimeType) ?? "application/octet-stream",
          url: str(a.path) ?? "",
        },
      });
    }
    if (!this.busy) {
      this.busy = true;
      events.push({ type: "session.status", status: "busy" });
    }
    return events;
  }

  /** The assistant message in progress; one is opened (with the event's id) when an event needs it first. */
  private ensureAssistant(ev: CopilotEvent): { info: MessageInfo; events: TimelineEvent[] } {
    if (this.assistant) return { info: this.assistant, events: [] };
    return this.openAssistant(ev.id, ev.timestamp);
  }

  private openAssistant(id: string, createdAt: number): { info: MessageInfo; events: TimelineEvent[] } {
    const info: MessageInfo = {
      id,
      sessionId: this.session.id,
      role: "assistant",
      createdAt,
      ...(this.session.model ? { model: this.session.model } : {}),
      ...(this.userId ? { parentId: this.userId } : {}),
    };
    this.assistant = info;
    this.lastAssistant = info;
    return { info, events: [{ type: "message.updated", message: info }] };
  }

  private turnStart(ev: CopilotEvent): TimelineEvent[] {
    const closing = this.assistant ? this.closeAssistant(ev.timestamp) : [];
    return [...closing, ...this.openAssistant(ev.id, ev.timestamp).events];
  }

  private turnEnd(ev: CopilotEvent): TimelineEvent[] {
    return this.assistant ? this.closeAssistant(ev.timestamp) : [];
  }

  private closeAssistant(at: number): TimelineEvent[] {
    const a = this.assistant;
    this.assistant = undefined;
    if (!a || a.completedAt !== undefined) return [];
    const done: MessageInfo = { ...a, completedAt: Math.max(at, a.createdAt) };
    this.lastAssistant = done;
    return [{ type: "message.updated", message: done }];
  }

  private setAssistantInfo(info: MessageInfo): TimelineEvent[] {
    if (this.assistant?.id === info.id) this.assistant = info;
    if (this.lastAssistant?.id === info.id) this.lastAssistant = info;
    return [{ type: "message.updated", message: info }];
  }

  private reasoningBlock(messageId: string, key: string, text: string, at: number) {
    const block = { id: `${messageId}:reasoning`, kind: "reasoning" as const, text, startedAt: at };
    this.reasoning.set(key, { messageId, block });
    return block;
  }

  private reasoningDelta(ev: CopilotEvent): TimelineEvent[] {
    const rid = str(ev.data.reasoningId);
    const delta = str(ev.data.deltaContent);
    if (!rid || !delta) return [];
    const r = this.reasoning.get(rid);
    if (r) {
      r.block = { ...r.block, text: r.block.text + delta };
      return [{ type: "block.delta", messageId: r.messageId, blockId: r.block.id, field: "text", delta }];
    }
    const m = this.ensureAssistant(ev);
    const block = this.reasoningBlock(m.info.id, rid, delta, ev.timestamp);
    return [...m.events, { type: "block.updated", messageId: m.info.id, block }];
  }

  private reasoningFinal(ev: CopilotEvent): TimelineEvent[] {
    const rid = str(ev.data.reasoningId);
    const content = str(ev.data.content);
    if (!rid || content === undefined) return [];
    const r = this.reasoning.get(rid);
    if (r) {
      r.block = { ...r.block, text: content, endedAt: ev.timestamp };
      return [{ type: "block.updated", messageId: r.messageId, block: r.block }];
    }
    // After its message (Copilot sends the final reasoning last): it belongs to the last model call.
    const target = this.assistant ?? this.lastAssistant;
    if (!target || !content) return [];
    const block = { ...this.reasoningBlock(target.id, rid, content, ev.timestamp), endedAt: ev.timestamp };
    this.reasoning.set(rid, { messageId: target.id, block });
    return [{ type: "block.updated", messageId: target.id, block }];
  }

  private assistantMessage(ev: CopilotEvent): TimelineEvent[] {
    const d = ev.data;
    const id = str(d.messageId);
    const content = str(d.content) ?? "";
    const m = this.ensureAssistant(ev);
    const events = [...m.events];
    const model = str(d.model);
    if (model && m.info.model?.id !== model) events.push(...this.setAssistantInfo({ ...m.info, model: { id: model } }));
    const reasoningText = str(d.reasoningText);
    const hasReasoning = [...this.reasoning.values()].some((r) => r.messageId === m.info.id);
    if (reasoningText && !hasReasoning) {
      const block = {
        ...this.reasoningBlock(m.info.id, `msg:${id ?? ev.id}`, reasoningText, ev.timestamp),
        endedAt: ev.timestamp,
      };
      this.reasoning.set(`msg:${id ?? ev.id}`, { messageId: m.info.id, block });
      events.push({ type: "block.updated", messageId: m.info.id, block });
    }
    if (id && (content || this.texts.has(id))) {
      this.texts.set(id, { messageId: m.info.id, text: content });
      events.push({
        type: "block.updated",
        messageId: m.info.id,
        block: { id: `text:${id}`, kind: "text", text: content },
      });
    }
    return events;
  }

  private usage(ev: CopilotEvent): TimelineEvent[] {
    const d = ev.data;
    const input = num(d.inputTokens) ?? 0;
    const output = num(d.outputTokens) ?? 0;
    const cacheRead = num(d.cacheReadTokens) ?? 0;
    const cacheWrite = num(d.cacheWriteTokens) ?? 0;
    const reasoning = num(d.reasoningTokens);
    this.totals.input += input;
    this.totals.output += output;
    this.totals.cacheRead += cacheRead;
    this.totals.cacheWrite += cacheWrite;
    const events: TimelineEvent[] = [];
    const target = this.assistant ?? this.lastAssistant;
    if (target) {
      const prev = target.usage;
      const usage: Usage = {
        inputTokens: (prev?.inputTokens ?? 0) + input,
        outputTokens: (prev?.outputTokens ?? 0) + output,
        cacheReadTokens: (prev?.cacheReadTokens ?? 0) + cacheRead,
        cacheWriteTokens: (prev?.cacheWriteTokens ?? 0) + cacheWrite,
        ...(reasoning !== undefined ? { reasoningTokens: (prev?.reasoningTokens ?? 0) + reasoning } : {}),
      };
      const model = str(d.model);
      events.push(...this.setAssistantInfo({ ...target, usage, ...(model ? { model: { id: model } } : {}) }));
    }
    events.push({ type: "usage.updated", usage: this.sessionUsage() });
    return events;
  }

  private sessionUsage(): Usage {
    return {
      inputTokens: this.totals.input,
      outputTokens: this.totals.output,
      ...(this.totals.cacheRead ? { cacheReadTokens: this.totals.cacheRead } : {}),
      ...(this.totals.cacheWrite ? { cacheWriteTokens: this.totals.cacheWrite } : {}),
      ...(this.context ? { contextTokens: this.context.tokens, contextWindow: this.context.window } : {}),
    };
  }

  private setTool(t: OpenTool, block: ToolBlock): TimelineEvent[] {
    t.block = block;
    return [{ type: "block.updated", messageId: t.messageId, block }];
  }

  private toolStart(ev: CopilotEvent): TimelineEvent[] {
    const d = ev.data;
    const callId = str(d.toolCallId);
    const rawTool = str(d.toolName);
    if (!callId || !rawTool) return [];
    const existing = this.tools.get(callId);
    const m = existing ? { info: { id: existing.messageId } as MessageInfo, events: [] } : this.ensureAssistant(ev);
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
    const t: OpenTool = { messageId: m.info.id, block };
    this.tools.set(callId, t);
    return [...m.events, { type: "block.updated", messageId: m.info.id, block }];
  }

  private toolComplete(ev: CopilotEvent): TimelineEvent[] {
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
    return this.setTool(t, block);
  }

  private compaction(ev: CopilotEvent): TimelineEvent[] {
    if (ev.data.success !== true) return [];
    const removed = num(ev.data.messagesRemoved);
    const info: MessageInfo = {
      id: ev.id,
      sessionId: this.session.id,
      role: "system",
      createdAt: ev.timestamp,
      completedAt: ev.timestamp,
      summary: true,
    };
    const text = removed
      ? `Conversation compacted (${removed} message${removed === 1 ? "" : "s"} summarized)`
      : "Conversation compacted";
    return [
      { type: "message.updated", message: info },
      {
        type: "block.updated",
        messageId: ev.id,
        block: { id: `${ev.id}:notice`, kind: "notice", level: "info", code: "compaction", text },
      },
    ];
  }

  /** An error or an abort ends the interaction: its last reply carries it (one is made when there is none). */
  private fail(ev: CopilotEvent, error: MessageError): TimelineEvent[] {
    const events: TimelineEvent[] = [];
    let target = this.assistant ?? this.lastAssistant;
    if (!target) {
      const opened = this.openAssistant(ev.id, ev.timestamp);
      events.push(...opened.events);
      target = opened.info;
    }
    events.push(
      ...this.setAssistantInfo({
        ...target,
        error,
        completedAt: target.completedAt ?? Math.max(ev.timestamp, target.createdAt),
      }),
    );
    if (this.assistant?.id === target.id) this.assistant = undefined;
    events.push(...this.endTools(ev.timestamp, error.aborted ? "cancelled" : "error"));
    return events;
  }

  /** Tools still running when their turn ends did not finish. */
  private endTools(at: number, status: ToolStatus): TimelineEvent[] {
    const events: TimelineEvent[] = [];
    for (const t of this.tools.values()) {
      if (t.block.status !== "running" && t.block.status !== "pending" && t.block.status !== "awaiting-approval")
        continue;
      events.push(...this.setTool(t, { ...t.block, status, endedAt: Math.max(at, t.block.startedAt ?? 0) }));
    }
    return events;
  }

  private idle(at: number): TimelineEvent[] {
    const events = [...this.closeAssistant(at), ...this.endTools(at, "cancelled")];
    this.tools.clear();
    this.texts.clear();
    this.reasoning.clear();
    if (this.busy || events.length) events.push({ type: "session.status", status: "idle" });
    this.busy = false;
    return events;
  }
}

/**
 * A session's messages from its persisted events (`session.getMessages`): the same mapping as the
 * live stream, materialized by the shared reducer (lib/timeline/reducer.ts). Interrupts are left
 * out (pending ones are read from the CLI's own list); an interaction the history ends in the
 * middle of is closed.
 */
export function historyMessages(
  session: Session,
  rawEvents: readonly unknown[],
): { messages: Message[]; session: Session } {
  const tl = new CopilotTimeline(session);
  const events: TimelineEvent[] = [{ type: "session.updated", session }];
  for (const raw of rawEvents) {
    const ev = parseEvent(raw);
    if (ev)
      events.push(...tl.apply(ev).filter((e) => e.type !== "interrupt.requested" && e.type !== "interrupt.resolved"));
  }
  if (tl.busy)
    events.push(...tl.apply({ id: "history-end", type: "session.idle", timestamp: 0, data: {}, ephemeral: true }));
  const state = applyAll(emptyState, events);
  return { messages: state.messages, session: { ...tl.session, status: "idle" } };
}
