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
  ToolBlock,
  ToolStatus,
  Usage,
} from "@/lib/model";
import type { PromptPart } from "@/lib/api";

import { obj, str, num, arr, type Obj } from "../shared/values";
import { contentText, mergeTool, optionKind, patternsOf, toTodos } from "./tools";

export { mergeTool, toolNameOf } from "./tools";

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

export function newSessionState(
  session: Session,
  opts: { titleLocked?: boolean; replayFrom?: number } = {},
): AcpSessionState {
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
        if (value !== undefined)
          out.push({
            value,
            name: group ? `${group}: ${str(y.name) ?? value}` : (str(y.name) ?? value),
            ...(str(y.description) ? { description: str(y.description)! } : {}),
          });
      }
      continue;
    }
    const value = str(x.value);
    if (value !== undefined)
      out.push({
        value,
        name: str(x.name) ?? value,
        ...(str(x.description) ? { description: str(x.description)! } : {}),
      });
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
    return id
      ? [{ id, name: str(o.name) ?? id, ...(str(o.description) ? { description: str(o.description)! } : {}) }]
      : [];
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
      choices: state.modes.available.map((m) => ({
        value: m.id,
        name: m.name,
        ...(m.description ? { description: m.description } : {}),
      })),
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
  return state.replayClock !== undefined
    ? `r${state.turns.toString(36).padStart(3, "0")}`
    : `t${now.toString(36)}${state.turns.toString(36)}`;
}

/** Closes the open text/reasoning block: one last full update (reasoning gets its end time). */
function closeOpen(state: AcpSessionState, now: number): TimelineEvent[] {
  const o = state.open;
  if (!o) return [];
  state.open = undefined;
  const block: Block =
    o.kind === "text"
      ? { id: o.id, kind: "text", text: o.text }
      : {
          id: o.id,
          kind: "reasoning",
          text: o.text,
          startedAt: o.startedAt,
          ...(state.replayClock === undefined ? { endedAt: now } : {}),
        };
  return [{ type: "block.updated", messageId: o.messageId, block }];
}

function chunk(state: AcpSessionState, kind: "text" | "reasoning", u: Obj, now: number): TimelineEvent[] {
  const text = contentText(u.content);
  if (text === undefined || text === "") return [];
  const agentMessageId = str(u.messageId);
  const events: TimelineEvent[] = [];
  const a = ensureAssistant(state, now);
  events.push(...a.events);
  const o = state.open;
  if (
    o &&
    o.kind === kind &&
    o.messageId === a.id &&
    (o.agentMessageId === undefined || agentMessageId === undefined || o.agentMessageId === agentMessageId)
  ) {
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
  if (
    cur &&
    (cur.agentMessageId === undefined || agentMessageId === undefined || cur.agentMessageId === agentMessageId)
  ) {
    cur.text += text;
    return [{ type: "block.delta", messageId: cur.id, blockId: cur.blockId, field: "text", delta: text }];
  }
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  state.assistant = undefined; // a replayed exchange ends when the next user message starts
  const id = `${agentMessageId ?? turnId(state, now)}-u`;
  const blockId = `${id}-b0`;
  state.user = { id, blockId, text, ...(agentMessageId ? { agentMessageId } : {}) };
  events.push({
    type: "message.updated",
    message: { id, sessionId: state.session.id, role: "user", createdAt: clock(state, now) },
  });
  events.push({ type: "block.updated", messageId: id, block: { id: blockId, kind: "text", text } });
  return events;
}

/* ------------------------------------------------------------------------------ tools */

/** The user said no to this tool call: its failure is shown as a denial. */
export function markRejected(state: AcpSessionState, toolCallId: string): void {
  state.rejected.add(toolCallId);
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
    events.push({
      type: "block.delta",
      messageId,
      blockId: next.id,
      field: "output",
      delta: next.output!.slice(prev.output!.length),
    });
  } else {
    events.push({ type: "block.updated", messageId, block: next });
  }
  if (next.tool === "todo") {
    const todos = toTodos(next.input.todos);
    if (todos) events.push({ type: "todo.updated", todos });
  }
  return events;
}

/* ------------------------------------------------------------------------------ updates */

function noticeBlock(
  state: AcpSessionState,
  level: "info" | "warn" | "error",
  text: string,
  now: number,
): TimelineEvent[] {
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  const a = ensureAssistant(state, now);
  events.push(...a.events);
  events.push({
    type: "block.updated",
    messageId: a.id,
    block: { id: nextBlockId(state, a.id), kind: "notice", level, text },
  });
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
        return name
          ? [
              {
                name,
                ...(str(o.description) ? { description: str(o.description)!.slice(0, 300) } : {}),
                ...(hint ? { hint } : {}),
              },
            ]
          : [];
      });
      return sessionChanged(state);
    case "current_mode_update": {
      const id = str(u.currentModeId);
      if (!id) return [];
      if (state.modes) state.modes = { ...state.modes, current: id };
      state.config = state.config.map((o) =>
        o.category === "mode" && o.type === "select" && o.choices.some((c) => c.value === id) ? { ...o, value: id } : o,
      );
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
      if (num(cost.amount) !== undefined && (str(cost.currency) ?? "USD").toUpperCase() === "USD")
        usage.costUsd = num(cost.amount)!;
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
      if (status === "failed")
        return noticeBlock(state, "warn", `Compaction failed${str(u.error) ? `: ${str(u.error)}` : ""}`, now);
      return [];
    }
    default:
      return [];
  }
}

/* ------------------------------------------------------------------------------ turns */

function promptBlocks(parts: PromptPart[], messageId: string): Block[] {
  return parts.map(
    (p, i): Block =>
      p.type === "text"
        ? { id: `${messageId}-b${i}`, kind: "text", text: p.text }
        : {
            id: `${messageId}-b${i}`,
            kind: "file",
            name: p.filename ?? "file",
            mime: p.mime,
            url: p.url.startsWith("data:") ? `data:${p.mime};base64,…` : p.url,
          },
  );
}

/** A prompt starts: the user message and the (empty) assistant message of the turn. */
export function beginTurn(
  state: AcpSessionState,
  parts: PromptPart[],
  now: number,
): { userId: string; assistantId: string; events: TimelineEvent[] } {
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  state.user = undefined;
  const base = turnId(state, now);
  const userId = `${base}-u`;
  const assistantId = `${base}-a`;
  events.push({
    type: "message.updated",
    message: { id: userId, sessionId: state.session.id, role: "user", createdAt: now },
  });
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

function finalizeTools(
  state: AcpSessionState,
  messageId: string,
  status: ToolStatus,
  now: number,
  error?: string,
): TimelineEvent[] {
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
export function endTurn(
  state: AcpSessionState,
  messageId: string,
  info: MessageInfo,
  result: unknown,
  now: number,
): TimelineEvent[] {
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
export function failTurn(
  state: AcpSessionState,
  messageId: string,
  info: MessageInfo,
  error: MessageError,
  now: number,
): TimelineEvent[] {
  const events: TimelineEvent[] = [...closeOpen(state, now)];
  events.push(...finalizeTools(state, messageId, "error", now, error.message));
  events.push({
    type: "block.updated",
    messageId,
    block: {
      id: nextBlockId(state, messageId),
      kind: "notice",
      level: "error",
      text: `${error.name}: ${error.message}`,
    },
  });
  events.push({ type: "message.updated", message: { ...info, completedAt: now, error } });
  if (state.assistant?.id === messageId) state.assistant = undefined;
  return events;
}

/** A notice appended to a given message (e.g. "the agent was restarted" after a failed turn). */
export function appendNotice(
  state: AcpSessionState,
  messageId: string,
  level: "info" | "warn" | "error",
  text: string,
): TimelineEvent[] {
  return [
    { type: "block.updated", messageId, block: { id: nextBlockId(state, messageId), kind: "notice", level, text } },
  ];
}

/* ------------------------------------------------------------------------------ permissions */

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
    permission: {
      action: kind ?? "tool",
      patterns: patternsOf({ ...input, ...obj(toolCall.rawInput) }, toolCall.locations),
      options,
    },
  };
  events.push({ type: "interrupt.requested", interrupt });
  return { interrupt, events };
}
