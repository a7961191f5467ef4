/**
 * ACP turn boundaries as timeline events (./normalize.ts): a prompt starts (the user message and the turn's assistant
 * message), `session/prompt` returns (usage, why it stopped) or fails, and notices after it.
 */
import type { PromptPart } from "@/lib/api";
import type { MessageError, MessageInfo, TimelineEvent, ToolBlock, ToolStatus, Usage } from "@/lib/model";
import { promptBlocks } from "../shared/prompt-blocks";
import { num, obj, str } from "../shared/values";
import { assistantInfo, closeOpen, nextBlockId, turnId, type AcpSessionState } from "./session-state";

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
