/**
 * ACP → canonical model. A deterministic per-session state machine: it is fed `session/update`
 * notifications, permission requests and turn boundaries, and returns canonical timeline events. No I/O;
 * the clock is passed in. Frames are untrusted: every accessor is defensive and malformed input yields
 * nothing, never a throw. Tested with the real transcripts in `fixtures/`.
 *
 * ACP has no message ids on Copilot, so ids are synthesized per turn: one user message and one assistant
 * message per prompt. A text or reasoning block stays open until another kind of block starts (or, on
 * OpenCode, the agent's `messageId` changes); closing it emits the block's full text once more.
 */
import type {
  Block,
  Interrupt,
  MessageError,
  MessageInfo,
  ModelRef,
  Session,
  SessionOption,
  SessionSettings,
  TimelineEvent,
  Todo,
  ToolBlock,
  ToolName,
  ToolStatus,
  Usage,
} from "@/lib/model";
import type { PromptPart } from "@/lib/api";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/* ------------------------------------------------------------------------------ state */

interface OpenBlock {
  kind: "text" | "reasoning";
  id: string;
  messageId: string;
  agentMessageId?: string;
  text: string;
  startedAt: number;
}

export interface AcpSessionState {
  session: Session;
  /** The assistant message of the running turn (or of the replayed exchange). */
  assistant?: { id: string };
  /** The user message being replayed by `session/load`. */
  user?: { id: string; blockId: string; text: string; agentMessageId?: string };
  open?: OpenBlock;
  tools: Map<string, { messageId: string; block: ToolBlock }>;
  /** Tool calls whose permission the user rejected: their failure is a denial. */
  rejected: Set<string>;
  usage?: Usage;
  modes?: { current: string; available: { id: string; name: string; description?: string }[] };
  config: SessionOption[];
  commands?: NonNullable<SessionSettings["commands"]>;
  /** The user renamed the session: titles from the agent are ignored. */
  titleLocked: boolean;
  /** Counters for synthetic ids. */
  turns: number;
  blocks: number;
  /** Set while collecting a `session/load` replay: messages get increasing synthetic timestamps. */
  replayClock?: number;
}

export function newSessionState(session: Session, opts: { titleLocked?: boolean; replayFrom?: number } = {}): AcpSessionState {
  return {
    session,
    tools: new Map(),
    rejected: new Set(),
    config: [],
    titleLocked: opts.titleLocked ?? false,
    turns: 0,
    blocks: 0,
    ...(opts.replayFrom !== undefined ? { replayClock: opts.replayFrom } : {}),
    ...(session.usage ? { usage: session.usage } : {}),
  };
}

/** Ends replay mode (after `session/load` returned): later messages use the real clock. */
export function endReplay(state: AcpSessionState): TimelineEvent[] {
  const events = closeOpen(state, state.replayClock ?? 0);
  delete state.replayClock;
  state.user = undefined;
  state.assistant = undefined;
  return events;
}

const nextBlockId = (state: AcpSessionState, messageId: string) => `${messageId}-b${(++state.blocks).toString(36)}`;

function clock(state: AcpSessionState, now: number): number {
  if (state.replayClock === undefined) return now;
  return ++state.replayClock;
}

/* ------------------------------------------------------------------------------ settings */

function selectChoices(options: unknown): SessionOption["choices"] {
  const out: SessionOption["choices"] = [];
  for (const o of arr(options)) {
    const x = obj(o);
    if (Array.isArray(x.options)) {
      // a group of options: flatten, keeping the group's name as a prefix
      const group = str(x.name);
      for (const g of x.options) {
        const y = obj(g);
        const value = str(y.value);
        if (value !== undefined) out.push({ value, name: group ? `${group}: ${str(y.name) ?? value}` : str(y.name) ?? value, ...(str(y.description) ? { description: str(y.description)! } : {}) });
      }
      continue;
    }
    const value = str(x.value);
    if (value !== undefined) out.push({ value, name: str(x.name) ?? value, ...(str(x.description) ? { description: str(x.description)! } : {}) });
  }
  return out;
}

/** ACP `configOptions` → canonical options (select and boolean; others are ignored). */
export function toConfigOptions(raw: unknown): SessionOption[] {
  const out: SessionOption[] = [];
  for (const o of arr(raw)) {
    const x = obj(o);
    const id = str(x.id);
    if (!id) continue;
    const base = {
      id,
      name: str(x.name) ?? id,
      source: "config" as const,
      ...(str(x.description) ? { description: str(x.description)! } : {}),
      ...(str(x.category) ? { category: str(x.category)! } : {}),
    };
    if (x.type === "boolean" && typeof x.currentValue === "boolean") {
      out.push({ ...base, type: "boolean", value: x.currentValue, choices: [] });
    } else if ((x.type === "select" || x.type === undefined) && typeof x.currentValue === "string") {
      out.push({ ...base, type: "select", value: x.currentValue, choices: selectChoices(x.options) });
    }
  }
  return out;
}

function toModes(raw: unknown): AcpSessionState["modes"] | undefined {
  const m = obj(raw);
  const current = str(m.currentModeId);
  if (!current) return undefined;
  const available = arr(m.availableModes).flatMap((x) => {
    const o = obj(x);
    const id = str(o.id);
    return id ? [{ id, name: str(o.name) ?? id, ...(str(o.description) ? { description: str(o.description)! } : {}) }] : [];
  });
  return { current, available };
}

/** The options shown to the user: config options, plus the modes when no config option already is the mode. */
export function settingsOf(state: AcpSessionState): SessionSettings {
  const options = [...state.config];
  if (state.modes && !state.config.some((o) => o.category === "mode")) {
    options.unshift({
      id: "mode",
      name: "Mode",
      source: "mode",
      category: "mode",
      type: "select",
      value: state.modes.current,
      choices: state.modes.available.map((m) => ({ value: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })),
    });
  }
  return { options, ...(state.commands ? { commands: state.commands } : {}) };
}

function modelOf(state: AcpSessionState): ModelRef | undefined {
  const opt = state.config.find((o) => o.category === "model" && typeof o.value === "string");
  if (!opt || typeof opt.value !== "string" || !opt.value) return undefined;
  const slash = opt.value.indexOf("/");
  return slash > 0 ? { provider: opt.value.slice(0, slash), id: opt.value.slice(slash + 1) } : { id: opt.value };
}

/** Re-derives the session's settings and model; emits `session.updated` only when something changed. */
function sessionChanged(state: AcpSessionState, patch: Partial<Session> = {}): TimelineEvent[] {
  const prev = state.session;
  const next: Session = { ...prev, ...patch, settings: settingsOf(state) };
  const model = modelOf(state);
  if (model) next.model = model;
  if (JSON.stringify(next) === JSON.stringify(prev)) return [];
  state.session = next;
  return [{ type: "session.updated", session: next }];
}

/** The `modes` / `configOptions` of a `session/new`, `session/load` or `set_config_option` result. */
export function applySessionSetup(state: AcpSessionState, result: unknown): TimelineEvent[] {
  const r = obj(result);
  if (r.modes !== undefined && r.modes !== null) {
    const modes = toModes(r.modes);
    if (modes) state.modes = modes;
  }
  if (Array.isArray(r.configOptions)) state.config = toConfigOptions(r.configOptions);
  return sessionChanged(state);
}

/** A local rename: the title is kept and the agent's own titles are ignored from now on. */
export function renameSession(state: AcpSessionState, title: string, now: number): TimelineEvent[] {
  state.titleLocked = true;
  return sessionChanged(state, { title, updatedAt: now });
}

/* ------------------------------------------------------------------------------ messages */

function assistantInfo(state: AcpSessionState, id: string, createdAt: number): MessageInfo {
  const model = state.session.model;
  return { id, sessionId: state.session.id, role: "assistant", createdAt, ...(model ? { model } : {}) };
}

/** Opens the assistant message when output arrives outside a turn (or during a replay). */
function ensureAssistant(state: AcpSessionState, now: number): { id: string; events: TimelineEvent[] } {
  if (state.assistant) return { id: state.assistant.id, events: [] };
  const events: TimelineEvent[] = [];
  let id: string;
  if (state.user) {
    // a replayed exchange: the answer to the user message just replayed
    id = `${state.user.id}-a`;
    state.user = undefined;
  } else {
    id = `${turnId(state, now)}-a`;
  }
  state.assistant = { id };
  events.push({ type: "message.updated", message: assistantInfo(state, id, clock(state, now)) });
  return { id, events };
}

function turnId(state: AcpSessionState, now: number): string {
  state.turns++;
  return state.replayClock !== undefined ? `r${state.turns.toString(36).padStart(3, "0")}` : `t${now.toString(36)}${state.turns.toString(36)}`;
}

/** Closes the open text/reasoning block: one last full update (reasoning gets its end time). */
function closeOpen(state: AcpSessionState, now: number): TimelineEvent[] {
  const o = state.open;
  if (!o) return [];
  state.open = undefined;
  const block: Block =
    o.kind === "text"
      ? { id: o.id, kind: "text", text: o.text }
      : { id: o.id, kind: "reasoning", text: o.text, startedAt: o.startedAt, ...(state.replayClock === undefined ? { endedAt: now } : {}) };
  return [{ type: "block.updated", messageId: o.messageId, block }];
}

function contentText(content: unknown): string | undefined {
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

function chunk(state: AcpSessionState, kind: "text" | "reasoning", u: Obj, now: number): TimelineEvent[] {
  const text = contentText(u.content);
  if (text === undefined || text === "") return [];
  const agentMessageId = str(u.messageId);
  const events: TimelineEvent[] = [];
  const a = ensureAssistant(state, now);
  events.push(...a.events);
  const o = state.open;
  if (o && o.kind === kind && o.messageId === a.id && (o.agentMessageId === undefined || agentMessageId === undefined || o.agentMessageId === agentMessageId)) {
    o.text += text;
    events.push({ type: "block.delta", messageId: a.id, blockId: o.id, field: "text", delta: text });
    return events;
  }
  events.push(...closeOpen(state, now));
  const id = nextBlockId(state, a.id);
  const startedAt = clock(state, now);
  state.open = { kind, id, messageId: a.id, text, startedAt, ...(agentMessageId ? { agentMessageId } : {}) };
  const block: Block = kind === "text" ? { id, kind: "text", text } : { id, kind: "reasoning", text, startedAt };
  events.push({ type: "block.updated", messageId: a.id, block });
  return events;
}

function userChunk(state: AcpSessionState, u: Obj, now: number): TimelineEvent[] {
  // Live turns already show the prompt the console sent; only replays (and agents that talk on their
  // own between turns) create user messages from chunks.
  if (state.replayClock === undefined && state.assistant) return [];
  const text = contentText(u.content);
  if (text === undefined) return [];
  const agentMessageId = str(u.messageId);
  const cur = state.user;
  if (cur && (cur.agentMessageId === undefined || agentMessageId === undefined || cur.agentMessageId === agentMessageId)) {
    cur.text += text;
    return [{ type: "block.delta", messageId: cur.id, blockId: cur.blockId, field: "text", delta: text }];
  }
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  state.assistant = undefined; // a replayed exchange ends when the next user message starts
  const id = `${agentMessageId ?? turnId(state, now)}-u`;
  const blockId = `${id}-b0`;
  state.user = { id, blockId, text, ...(agentMessageId ? { agentMessageId } : {}) };
  events.push({ type: "message.updated", message: { id, sessionId: state.session.id, role: "user", createdAt: clock(state, now) } });
  events.push({ type: "block.updated", messageId: id, block: { id: blockId, kind: "text", text } });
  return events;
}

/* ------------------------------------------------------------------------------ tools */

const TITLE_TOOLS: Record<string, ToolName> = {
  bash: "bash",
  shell: "bash",
  read: "read",
  view: "read",
  write: "write",
  create: "write",
  edit: "edit",
  multiedit: "edit",
  patch: "patch",
  apply_patch: "patch",
  grep: "grep",
  glob: "glob",
  list: "list",
  ls: "list",
  webfetch: "webfetch",
  fetch: "webfetch",
  task: "task",
  todowrite: "todo",
  todoread: "todo",
  question: "question",
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
      return errorText && /rejected permission|permission denied|user (rejected|denied)|denied by the user/i.test(errorText) ? "denied" : "error";
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
      diff = { path: str(c.path)!, newText: c.newText, ...(typeof c.oldText === "string" ? { oldText: c.oldText } : {}) };
    }
  }
  return { ...(texts.length ? { text: texts.join("\n") } : {}), ...(diff ? { diff } : {}) };
}

function rawOutputText(raw: unknown): string | undefined {
  if (typeof raw === "string") return raw;
  const r = obj(raw);
  return str(r.output) ?? str(r.content) ?? str(r.error) ?? str(r.message);
}

/** The user said no to this tool call: its failure is shown as a denial. */
export function markRejected(state: AcpSessionState, toolCallId: string): void {
  state.rejected.add(toolCallId);
}

function exitCodeOf(raw: unknown, text: string | undefined): number | undefined {
  const r = obj(raw);
  for (const c of arr(r.contents)) {
    const x = obj(c);
    if (x.type === "shell_exit" && num(x.exitCode) !== undefined) return num(x.exitCode);
  }
  const meta = obj(r.metadata);
  if (num(meta.exit) !== undefined) return num(meta.exit);
  const m = text ? SHELL_MARKER.exec(text) : null;
  return m ? Number(m[1]) : undefined;
}

/** Merges a `tool_call` / `tool_call_update` (absent fields keep their value) into a canonical block. */
export function mergeTool(prev: ToolBlock | undefined, u: Obj, messageId: string, now: number, rejected = false): ToolBlock {
  const callId = str(u.toolCallId) ?? prev?.callId ?? "tool";
  const kind = str(u.kind);
  const title = str(u.title);
  let b: ToolBlock = prev
    ? { ...prev }
    : {
        id: `${messageId}-tool-${callId}`,
        kind: "tool",
        callId,
        tool: toolNameOf(kind, title),
        rawTool: kind && kind !== "other" ? kind : title ?? "other",
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
  let text = content?.text ?? (u.rawOutput !== undefined ? rawOutputText(u.rawOutput) : undefined);
  const exit = exitCodeOf(u.rawOutput, text);
  if (text !== undefined) text = text.replace(SHELL_MARKER, "");
  if (exit !== undefined) b.exitCode = exit;
  if (content?.diff) {
    const d = content.diff;
    b.input = { filePath: d.path, ...b.input, ...(d.oldText !== undefined ? { oldString: d.oldText, newString: d.newText } : { content: d.newText }) };
    if (b.tool === "other" || b.tool === "edit") b.tool = d.oldText === undefined || d.oldText === "" ? "write" : "edit";
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
    if (str(loc.path)) b.input = { path: str(loc.path)!, ...(num(loc.line) !== undefined ? { line: num(loc.line)! } : {}) };
  }
  return b;
}

function toolEvents(state: AcpSessionState, u: Obj, now: number): TimelineEvent[] {
  const callId = str(u.toolCallId);
  if (!callId) return [];
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  const known = state.tools.get(callId);
  let messageId: string;
  if (known) messageId = known.messageId;
  else {
    const a = ensureAssistant(state, now);
    events.push(...a.events);
    messageId = a.id;
  }
  const prev = known?.block;
  const next = mergeTool(prev, u, messageId, clock(state, now), state.rejected.has(callId));
  state.tools.set(callId, { messageId, block: next });
  const onlyOutputGrew =
    prev !== undefined &&
    next.output !== undefined &&
    prev.output !== undefined &&
    next.output.length > prev.output.length &&
    next.output.startsWith(prev.output) &&
    JSON.stringify({ ...next, output: "" }) === JSON.stringify({ ...prev, output: "" });
  if (onlyOutputGrew) {
    events.push({ type: "block.delta", messageId, blockId: next.id, field: "output", delta: next.output!.slice(prev.output!.length) });
  } else {
    events.push({ type: "block.updated", messageId, block: next });
  }
  if (next.tool === "todo") {
    const todos = toTodos(next.input.todos);
    if (todos) events.push({ type: "todo.updated", todos });
  }
  return events;
}

function toTodos(raw: unknown): Todo[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.flatMap((t) => {
    const o = obj(t);
    const content = str(o.content);
    return content ? [{ content, status: str(o.status) ?? "pending", ...(str(o.priority) ? { priority: str(o.priority)! } : {}) }] : [];
  });
}

/* ------------------------------------------------------------------------------ updates */

function noticeBlock(state: AcpSessionState, level: "info" | "warn" | "error", text: string, now: number): TimelineEvent[] {
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  const a = ensureAssistant(state, now);
  events.push(...a.events);
  events.push({ type: "block.updated", messageId: a.id, block: { id: nextBlockId(state, a.id), kind: "notice", level, text } });
  return events;
}

/** One `session/update` → canonical events (unknown variants yield nothing). */
export function applyUpdate(state: AcpSessionState, update: unknown, now: number): TimelineEvent[] {
  const u = obj(update);
  switch (str(u.sessionUpdate)) {
    case "user_message_chunk":
      return userChunk(state, u, now);
    case "agent_message_chunk":
      return chunk(state, "text", u, now);
    case "agent_thought_chunk":
      return chunk(state, "reasoning", u, now);
    case "tool_call":
    case "tool_call_update":
      return toolEvents(state, u, now);
    case "plan": {
      const todos = toTodos(u.entries);
      return todos ? [{ type: "todo.updated", todos }] : [];
    }
    case "available_commands_update":
      state.commands = arr(u.availableCommands).flatMap((c) => {
        const o = obj(c);
        const name = str(o.name);
        const hint = str(obj(o.input).hint);
        return name ? [{ name, ...(str(o.description) ? { description: str(o.description)!.slice(0, 300) } : {}), ...(hint ? { hint } : {}) }] : [];
      });
      return sessionChanged(state);
    case "current_mode_update": {
      const id = str(u.currentModeId);
      if (!id) return [];
      if (state.modes) state.modes = { ...state.modes, current: id };
      state.config = state.config.map((o) => (o.category === "mode" && o.type === "select" && o.choices.some((c) => c.value === id) ? { ...o, value: id } : o));
      return sessionChanged(state);
    }
    case "config_option_update":
      if (!Array.isArray(u.configOptions)) return [];
      state.config = toConfigOptions(u.configOptions);
      return sessionChanged(state);
    case "session_info_update": {
      const patch: Partial<Session> = {};
      const title = str(u.title);
      if (title && !state.titleLocked) patch.title = title;
      const updated = str(u.updatedAt) ? Date.parse(str(u.updatedAt)!) : NaN;
      if (Number.isFinite(updated)) patch.updatedAt = updated;
      return Object.keys(patch).length ? sessionChanged(state, patch) : [];
    }
    case "usage_update": {
      const used = num(u.used);
      const size = num(u.size);
      if (used === undefined && size === undefined) return [];
      const cost = obj(u.cost);
      const usage: Usage = { inputTokens: 0, outputTokens: 0, ...state.usage };
      if (used !== undefined) usage.contextTokens = used;
      if (size !== undefined) usage.contextWindow = size;
      if (num(cost.amount) !== undefined && (str(cost.currency) ?? "USD").toUpperCase() === "USD") usage.costUsd = num(cost.amount)!;
      state.usage = usage;
      return [{ type: "usage.updated", usage }];
    }
    case "notice": {
      const severity = str(u.severity);
      const text = [str(u.title), str(u.description)].filter(Boolean).join(" — ");
      if (!text) return [];
      return noticeBlock(state, severity === "error" ? "error" : severity === "warning" ? "warn" : "info", text, now);
    }
    case "compaction_update": {
      const status = str(u.status);
      if (status === "completed") return noticeBlock(state, "info", "Context compacted", now);
      if (status === "failed") return noticeBlock(state, "warn", `Compaction failed${str(u.error) ? `: ${str(u.error)}` : ""}`, now);
      return [];
    }
    default:
      return [];
  }
}

/* ------------------------------------------------------------------------------ turns */

function promptBlocks(parts: PromptPart[], messageId: string): Block[] {
  return parts.map((p, i): Block =>
    p.type === "text"
      ? { id: `${messageId}-b${i}`, kind: "text", text: p.text }
      : { id: `${messageId}-b${i}`, kind: "file", name: p.filename ?? "file", mime: p.mime, url: p.url.startsWith("data:") ? `data:${p.mime};base64,…` : p.url },
  );
}

/** A prompt starts: the user message and the (empty) assistant message of the turn. */
export function beginTurn(state: AcpSessionState, parts: PromptPart[], now: number): { userId: string; assistantId: string; events: TimelineEvent[] } {
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  state.user = undefined;
  const base = turnId(state, now);
  const userId = `${base}-u`;
  const assistantId = `${base}-a`;
  events.push({ type: "message.updated", message: { id: userId, sessionId: state.session.id, role: "user", createdAt: now } });
  for (const block of promptBlocks(parts, userId)) events.push({ type: "block.updated", messageId: userId, block });
  state.assistant = { id: assistantId };
  // +1 ms keeps the assistant after the user message when both are ordered by time.
  events.push({ type: "message.updated", message: assistantInfo(state, assistantId, now + 1) });
  return { userId, assistantId, events };
}

function toResultUsage(raw: unknown): Usage | undefined {
  const u = obj(raw);
  const input = num(u.inputTokens) ?? 0;
  const output = num(u.outputTokens) ?? 0;
  const cacheRead = num(u.cachedReadTokens) ?? 0;
  const cacheWrite = num(u.cachedWriteTokens) ?? 0;
  const reasoning = num(u.thoughtTokens) ?? 0;
  if (!input && !output && !cacheRead && !cacheWrite) return undefined;
  return {
    inputTokens: input,
    outputTokens: output,
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
    ...(cacheRead ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
  };
}

const STOP_ERRORS: Record<string, MessageError> = {
  cancelled: { name: "Aborted", message: "Stopped", aborted: true },
  max_tokens: { name: "MaxTokens", message: "The model reached its output token limit" },
  max_turn_requests: { name: "MaxTurnRequests", message: "The agent reached its limit of model requests for one turn" },
  refusal: { name: "Refusal", message: "The agent refused to continue" },
};

function finalizeTools(state: AcpSessionState, messageId: string, status: ToolStatus, now: number, error?: string): TimelineEvent[] {
  const events: TimelineEvent[] = [];
  for (const [callId, t] of state.tools) {
    if (t.messageId !== messageId) continue;
    const s = t.block.status;
    if (s !== "pending" && s !== "running" && s !== "awaiting-approval") continue;
    const block: ToolBlock = { ...t.block, status, endedAt: now, ...(error ? { error } : {}) };
    state.tools.set(callId, { messageId, block });
    events.push({ type: "block.updated", messageId, block });
  }
  return events;
}

/** `session/prompt` returned: close the blocks, record usage, mark the turn's end (and why it stopped). */
export function endTurn(state: AcpSessionState, messageId: string, info: MessageInfo, result: unknown, now: number): TimelineEvent[] {
  const r = obj(result);
  const stopReason = str(r.stopReason) ?? "end_turn";
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  if (stopReason === "cancelled") events.push(...finalizeTools(state, messageId, "cancelled", now));
  const usage = toResultUsage(r.usage);
  const next: MessageInfo = { ...info, completedAt: now, ...(usage ? { usage } : {}) };
  const err = STOP_ERRORS[stopReason];
  if (err) next.error = err;
  events.push({ type: "message.updated", message: next });
  if (usage) {
    const prev = state.usage ?? { inputTokens: 0, outputTokens: 0 };
    const total: Usage = {
      ...prev,
      inputTokens: prev.inputTokens + usage.inputTokens,
      outputTokens: prev.outputTokens + usage.outputTokens,
    };
    if (usage.cacheReadTokens) total.cacheReadTokens = (prev.cacheReadTokens ?? 0) + usage.cacheReadTokens;
    if (usage.cacheWriteTokens) total.cacheWriteTokens = (prev.cacheWriteTokens ?? 0) + usage.cacheWriteTokens;
    if (usage.reasoningTokens) total.reasoningTokens = (prev.reasoningTokens ?? 0) + usage.reasoningTokens;
    state.usage = total;
    events.push({ type: "usage.updated", usage: total });
  }
  if (state.assistant?.id === messageId) state.assistant = undefined;
  return events;
}

/** The turn failed (agent error, or the process died): running tools fail, a notice says why. */
export function failTurn(state: AcpSessionState, messageId: string, info: MessageInfo, error: MessageError, now: number): TimelineEvent[] {
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  events.push(...finalizeTools(state, messageId, "error", now, error.message));
  events.push({ type: "block.updated", messageId, block: { id: nextBlockId(state, messageId), kind: "notice", level: "error", text: `${error.name}: ${error.message}` } });
  events.push({ type: "message.updated", message: { ...info, completedAt: now, error } });
  if (state.assistant?.id === messageId) state.assistant = undefined;
  return events;
}

/** A notice appended to a given message (e.g. "the agent was restarted" after a failed turn). */
export function appendNotice(state: AcpSessionState, messageId: string, level: "info" | "warn" | "error", text: string): TimelineEvent[] {
  return [{ type: "block.updated", messageId, block: { id: nextBlockId(state, messageId), kind: "notice", level, text } }];
}

/* ------------------------------------------------------------------------------ permissions */

function patternsOf(input: Obj, locations: unknown): string[] {
  const out: string[] = [];
  const cmd = input.command;
  if (typeof cmd === "string") out.push(cmd);
  else if (Array.isArray(cmd)) out.push(cmd.filter((c) => typeof c === "string").join(" "));
  for (const k of ["path", "filePath", "file_path", "url", "pattern"]) if (typeof input[k] === "string") out.push(input[k] as string);
  for (const l of arr(locations)) if (str(obj(l).path)) out.push(str(obj(l).path)!);
  return [...new Set(out)];
}

function optionKind(kind: string | undefined): "allow_once" | "allow_always" | "reject" | undefined {
  if (kind === "allow_once" || kind === "allow_always") return kind;
  if (kind === "reject_once" || kind === "reject_always") return "reject";
  return undefined;
}

/**
 * `session/request_permission` → a permission interrupt with the request's own options, plus the merge
 * of its `toolCall` into the tool block. Returns null for a malformed request.
 */
export function permissionRequest(
  state: AcpSessionState,
  params: unknown,
  interruptId: string,
  now: number,
): { interrupt: Interrupt; events: TimelineEvent[] } | null {
  const p = obj(params);
  const toolCall = obj(p.toolCall);
  const callId = str(toolCall.toolCallId);
  const options = arr(p.options).flatMap((o) => {
    const x = obj(o);
    const id = str(x.optionId);
    const kind = optionKind(str(x.kind));
    return id !== undefined && kind ? [{ id, label: str(x.name) ?? id, kind }] : [];
  });
  if (options.length === 0) return null;
  const events: TimelineEvent[] = [];
  let messageId: string | undefined;
  let input: Obj = obj(toolCall.rawInput);
  if (callId) {
    // The request's tool call is a partial update: merge it without letting its `pending` status
    // undo what the tool block already shows.
    const known = state.tools.get(callId);
    const update: Obj = { ...toolCall, sessionUpdate: "tool_call_update" };
    if (known) delete update.status;
    if (known && Object.keys(known.block.input).length > 0) delete update.rawInput;
    events.push(...toolEvents(state, update, now));
    const t = state.tools.get(callId);
    messageId = t?.messageId;
    if (t) input = t.block.input;
  }
  const kind = str(toolCall.kind);
  const interrupt: Interrupt = {
    id: interruptId,
    sessionId: state.session.id,
    kind: "permission",
    createdAt: now,
    title: str(toolCall.title) ?? "Permission requested",
    ...(callId ? { toolCallId: callId } : {}),
    ...(messageId ? { messageId } : {}),
    permission: { action: kind ?? "tool", patterns: patternsOf({ ...input, ...obj(toolCall.rawInput) }, toolCall.locations), options },
  };
  events.push({ type: "interrupt.requested", interrupt });
  return { interrupt, events };
}
