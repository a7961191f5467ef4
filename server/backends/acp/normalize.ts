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
import type { Block, Interrupt, Session, TimelineEvent, Usage } from "@/lib/model";
import { obj, str, num, arr, type Obj } from "../shared/values";
import { clock, closeOpen, ensureAssistant, nextBlockId, turnId, type AcpSessionState } from "./session-state";
import { sessionChanged, toCommands, toConfigOptions } from "./settings";
import { contentText, mergeTool, optionKind, patternsOf, toTodos } from "./tools";

// The normalizer's parts live beside it; this module stays its entry point.
export { endReplay, newSessionState, type AcpSessionState } from "./session-state";
export { applySessionSetup, renameSession, settingsOf, toConfigOptions } from "./settings";
export { mergeTool, toolNameOf } from "./tools";
export { appendNotice, beginTurn, endTurn, failTurn } from "./turn-events";

/* ------------------------------------------------------------------------------ messages */

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
      state.commands = toCommands(u.availableCommands);
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
