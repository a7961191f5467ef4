/**
 * A2A 0.3 → canonical model (docs/backends/a2a.md, "What maps to what"). A deterministic per-session
 * state machine: no I/O, the clock is passed in. The adapter (./adapter.ts) feeds it the frames of
 * `message/stream`, `tasks/resubscribe`, `tasks/get` and `message/send` and publishes what it
 * returns. Frames are untrusted: every accessor is defensive, a malformed frame yields nothing and
 * never throws, and nothing an agent sends becomes HTML (data parts are JSON text in a notice, files
 * are links the view checks again).
 *
 * Two profiles share it:
 * - generic A2A: a turn is one task; artifact chunks append (`append: true`) or replace
 *   (`append: false`) their artifact; status messages and agent messages are text;
 *   `input-required` / `auth-required` pause the turn with an `input` interrupt; `failed` / `rejected`
 *   fail it with the agent's message.
 * - opencode-a2a: every chunk of a turn shares one artifact whose `metadata.shared.stream` says which
 *   OpenCode message (`message_id`) and block (`block_type`: text / reasoning deltas, tool_call
 *   snapshots that replace) it belongs to; `shared.interrupt` asks and resolves permission and question
 *   interrupts; the final status carries usage and the session binding.
 */
import type { PromptPart } from "@/lib/api";
import type { MessageError, MessageInfo, ModelRef, TimelineEvent, ToolBlock } from "@/lib/model";
import { arr, obj, str } from "../shared/values";
import { showParts } from "./parts";
import { applyArtifact, applyStatus, applyTask } from "./task-updates";
import {
  closeTurn,
  emptyResult,
  ensureAssistant,
  lastAssistant,
  tick,
  type FrameResult,
  type SessionNorm,
  type TaskState,
  type TurnEnd,
} from "./turn-state";

// The normalizer's parts live beside it; this module stays its entry point.
export { interruptAsk, toInterrupt } from "./interrupts";
export { partsText } from "./parts";
export {
  isPaused,
  isTerminal,
  newSessionNorm,
  taskState,
  type FrameResult,
  type InterruptAsk,
  type Profile,
  type SessionNorm,
  type TaskState,
  type TurnEnd,
  type TurnState,
} from "./turn-state";
export { sumUsage, toUsage } from "./usage";

/* ------------------------------------------------------------------------------ turns */

/** The user's message of a new turn (or of an answer to a paused one), and the turn's state. */
export function beginTurn(
  n: SessionNorm,
  t: {
    userMessageId: string;
    assistantId: string;
    parts: readonly PromptPart[];
    model?: ModelRef;
    now: number;
    taskId?: string;
    contextId?: string;
  },
): TimelineEvent[] {
  const createdAt = tick(n, t.now);
  const prev = n.turn;
  n.turn = {
    userMessageId: t.userMessageId,
    assistantId: t.assistantId,
    assistantShown: false,
    assistantCreatedAt: 0,
    ...(t.model ? { model: t.model } : {}),
    ...(t.taskId ? { taskId: t.taskId } : prev?.taskId && !prev.done ? { taskId: prev.taskId } : {}),
    ...(t.contextId ? { contextId: t.contextId } : {}),
    artifacts: new Map(),
    texts: new Map(),
    blockMessage: new Map(),
    messages: new Map(),
    tools: new Map(),
    lastSequence: prev && !prev.done ? prev.lastSequence : 0,
    usageByMessage: prev && !prev.done ? prev.usageByMessage : new Map(),
    done: false,
  };
  const info: MessageInfo = {
    id: t.userMessageId,
    sessionId: n.sessionId,
    role: "user",
    createdAt,
    ...(t.model ? { model: t.model } : {}),
  };
  const events: TimelineEvent[] = [{ type: "message.updated", message: info }];
  t.parts.forEach((p, i) => {
    const id = `${t.userMessageId}:${i}`;
    if (p.type === "text")
      events.push({ type: "block.updated", messageId: info.id, block: { id, kind: "text", text: p.text } });
    else
      events.push({
        type: "block.updated",
        messageId: info.id,
        block: { id, kind: "file", name: p.filename ?? "file", mime: p.mime, url: p.url },
      });
  });
  return events;
}

/* ------------------------------------------------------------------------------ frames */

/**
 * Applies one stream item (`task`, `message`, `status-update`, `artifact-update`) of the running
 * turn. Frames of another task than the turn's (after it is known) are ignored.
 */
export function applyFrame(
  n: SessionNorm,
  frame: unknown,
  now: number,
  opts: { snapshotEnds?: boolean } = {},
): FrameResult {
  const f = obj(frame);
  const turn = n.turn;
  if (!turn || turn.done) return emptyResult();
  const kind = str(f.kind);
  const taskId = kind === "task" ? str(f.id) : str(f.taskId);
  if (turn.taskId && taskId && taskId !== turn.taskId) return emptyResult();
  const r = emptyResult();
  if (taskId) turn.taskId ??= taskId;
  const contextId = str(f.contextId);
  if (contextId) turn.contextId = contextId;
  if (turn.taskId) r.taskId = turn.taskId;
  if (turn.contextId) r.contextId = turn.contextId;
  switch (kind) {
    case "artifact-update":
      applyArtifact(n, turn, f, now, r);
      break;
    case "status-update":
      applyStatus(n, turn, obj(f.status), obj(f.metadata), f.final === true, now, r);
      break;
    case "message":
      if (f.role !== "user") {
        r.events.push(...ensureAssistant(n, turn, turn.assistantId, now));
        r.events.push(...showParts(turn, turn.assistantId, `msg:${str(f.messageId) ?? "reply"}`, arr(f.parts), false));
        // A message (not a task) is the whole answer: the exchange is over.
        r.end = { state: "completed" };
      }
      break;
    case "task":
      applyTask(n, turn, f, now, r, opts.snapshotEnds !== false);
      break;
    default:
      break;
  }
  if (r.end) closeTurn(turn, r.end);
  return r;
}

/* ------------------------------------------------------------------------------ turn end */

const END_ERROR: Partial<Record<TaskState, { name: string; text: string }>> = {
  failed: { name: "TaskFailed", text: "The agent failed the task." },
  rejected: { name: "TaskRejected", text: "The agent rejected the task." },
  unknown: { name: "TaskUnknown", text: "The agent left the task in an unknown state." },
};

/**
 * Ends (or pauses) the turn's messages: completed, failed / rejected with the agent's message,
 * canceled as stopped. The session status is the adapter's to publish.
 */
export function endTurn(n: SessionNorm, end: TurnEnd, now: number): TimelineEvent[] {
  const turn = n.turn;
  if (!turn) return [];
  closeTurn(turn, end);
  const events: TimelineEvent[] = [];
  let error: MessageError | undefined;
  if (end.state === "canceled") error = { name: "TaskCanceled", message: "Stopped.", aborted: true };
  else if (END_ERROR[end.state])
    error = {
      name: end.errorType ?? END_ERROR[end.state]!.name,
      message: end.message?.trim() || END_ERROR[end.state]!.text,
    };
  const last = lastAssistant(n, turn);
  if (error && !last) events.push(...ensureAssistant(n, turn, turn.assistantId, now));
  const target = lastAssistant(n, turn);
  if (!target) return events;
  const completedAt = Math.max(now, target.createdAt);
  for (const info of n.profile === "opencode" ? turn.messages.values() : [target]) {
    const isLast = info.id === target.id;
    const next: MessageInfo = {
      ...info,
      completedAt,
      ...(isLast && turn.usage ? { usage: turn.usage } : {}),
      ...(isLast && error ? { error } : {}),
    };
    if (n.profile === "opencode") turn.messages.set(info.id, next);
    events.push({ type: "message.updated", message: next });
  }
  // Tools still running when the task ended did not finish.
  for (const t of turn.tools.values()) {
    if (t.status !== "running" && t.status !== "pending") continue;
    const block: ToolBlock = { ...t, status: end.state === "completed" ? "completed" : "cancelled", endedAt: now };
    turn.tools.set(t.callId, block);
    events.push({ type: "block.updated", messageId: turn.blockMessage.get(t.id) ?? target.id, block });
  }
  // The error is on the reply (shown there), not repeated as the session's error.
  return events;
}

/** Fails the running turn for a reason of the console's (the transport, a lost task). */
export function failTurn(n: SessionNorm, error: { name: string; message: string }, now: number): TimelineEvent[] {
  const turn = n.turn;
  if (!turn || turn.done) return [];
  return endTurn(n, { state: "failed", message: error.message, errorType: error.name }, now);
}

/** A notice on the turn's last assistant message (or a new one). */
export function turnNotice(
  n: SessionNorm,
  id: string,
  level: "info" | "warn" | "error",
  text: string,
  now: number,
): TimelineEvent[] {
  const turn = n.turn;
  if (!turn) return [];
  const events: TimelineEvent[] = [];
  let target = lastAssistant(n, turn);
  if (!target) {
    events.push(...ensureAssistant(n, turn, turn.assistantId, now));
    target = lastAssistant(n, turn)!;
  }
  events.push({ type: "block.updated", messageId: target.id, block: { id, kind: "notice", level, text } });
  return events;
}
