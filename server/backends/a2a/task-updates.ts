/**
 * The stream items of a running A2A turn (./normalize.ts, `applyFrame`): artifact updates (generic
 * parts, or opencode-a2a's shared stream of text, reasoning and tool-call chunks), status updates
 * (usage, the session binding, interrupts, the turn's end or pause) and task snapshots.
 */
import type { ToolBlock, ToolStatus } from "@/lib/model";
import { canonicalTool } from "../shared/tool-names";
import { arr, isObj, num, obj, str, type Obj } from "../shared/values";
import { interruptAsk } from "./interrupts";
import { appendText, dataText, partsText, setText, showParts } from "./parts";
import {
  ensureAssistant,
  isPaused,
  isTerminal,
  taskState,
  type FrameResult,
  type SessionNorm,
  type TurnState,
} from "./turn-state";
import { sumUsage, toUsage } from "./usage";

export function applyArtifact(n: SessionNorm, turn: TurnState, f: Obj, now: number, r: FrameResult) {
  const artifact = obj(f.artifact);
  const artifactId = str(artifact.artifactId) ?? "artifact";
  const parts = arr(artifact.parts);
  const stream = obj(obj(obj(artifact.metadata).shared).stream);
  if (
    n.profile === "opencode" &&
    (isObj(obj(artifact.metadata).shared) || artifactId.endsWith(":error") || artifactId.endsWith(":stream"))
  ) {
    applyOpencodeChunk(n, turn, artifactId, parts, stream, now, r);
    return;
  }
  r.events.push(...ensureAssistant(n, turn, turn.assistantId, now));
  // `append` absent or false: the artifact (re)starts with these parts.
  r.events.push(
    ...showParts(
      turn,
      turn.assistantId,
      `art:${artifactId}`,
      parts,
      f.append === true && turn.artifacts.has(`art:${artifactId}`),
    ),
  );
}

export function applyOpencodeChunk(
  n: SessionNorm,
  turn: TurnState,
  artifactId: string,
  parts: unknown[],
  stream: Obj,
  now: number,
  r: FrameResult,
) {
  if (artifactId.endsWith(":error")) {
    turn.errorText = partsText(parts) || turn.errorText;
    return;
  }
  const seq = num(stream.sequence);
  if (seq !== undefined) {
    if (seq <= turn.lastSequence) return; // already applied (a replay after a reconnect)
    turn.lastSequence = seq;
  }
  if (stream.role === "user") return; // the echo of the prompt
  const messageId = str(stream.message_id) ?? `${turn.taskId ?? "task"}:${turn.contextId ?? "ctx"}:assistant`;
  const blockType = str(stream.block_type) ?? "text";
  const part = obj(parts[0]);
  if (blockType === "tool_call") {
    const data = obj(part.data);
    if (!isObj(part.data)) return;
    r.events.push(...ensureAssistant(n, turn, messageId, now));
    const block = toolSnapshot(data, messageId, turn.tools.size, now, turn.tools);
    turn.tools.set(block.callId, block);
    turn.blockMessage.set(block.id, messageId);
    r.events.push({ type: "block.updated", messageId, block });
    return;
  }
  if (blockType !== "text" && blockType !== "reasoning") return;
  const text = typeof part.text === "string" ? part.text : undefined;
  if (text === undefined) return;
  r.events.push(...ensureAssistant(n, turn, messageId, now));
  const blockId = `${messageId}:${blockType}`;
  // A final snapshot replaces the streamed text (sent only when they differ).
  if (stream.source === "final_snapshot") r.events.push(...setText(turn, messageId, blockId, blockType, text));
  else r.events.push(...appendText(turn, messageId, blockId, blockType, text));
}

const TOOL_STATUS: Record<string, ToolStatus> = {
  pending: "pending",
  running: "running",
  completed: "completed",
  error: "error",
};

/** A `tool_call` snapshot `{call_id, tool, status, title, subtitle, input, output, error}` as a tool block. */
function toolSnapshot(d: Obj, messageId: string, index: number, now: number, known: Map<string, ToolBlock>): ToolBlock {
  const callId = str(d.call_id) ?? `${messageId}:tool:${index}`;
  const prev = known.get(callId);
  const rawTool = str(d.tool) ?? prev?.rawTool ?? "tool";
  const status = TOOL_STATUS[str(d.status) ?? ""] ?? prev?.status ?? "running";
  const input = isObj(d.input) ? d.input : (prev?.input ?? {});
  const output =
    typeof d.output === "string"
      ? d.output
      : d.output !== undefined && d.output !== null
        ? dataText(d.output)
        : prev?.output;
  const error = typeof d.error === "string" ? d.error : prev?.error;
  const title = str(d.title) ?? str(d.subtitle) ?? prev?.title;
  const exit = num(obj(obj(d.metadata)).exit);
  const done = status === "completed" || status === "error";
  return {
    id: `tool:${callId}`,
    kind: "tool",
    callId,
    tool: canonicalTool(rawTool),
    rawTool,
    status,
    input,
    ...(title ? { title } : {}),
    ...(output !== undefined ? { output } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(exit !== undefined ? { exitCode: exit } : {}),
    startedAt: prev?.startedAt ?? now,
    ...(done ? { endedAt: prev?.endedAt ?? now } : {}),
  };
}

export function applyStatus(
  n: SessionNorm,
  turn: TurnState,
  status: Obj,
  meta: Obj,
  final: boolean,
  now: number,
  r: FrameResult,
) {
  // An update without a state says nothing about where the task is (a malformed frame).
  const state = typeof status.state === "string" ? taskState(status.state) : "working";
  turn.lastState = state;
  const shared = obj(meta.shared);
  const session = obj(shared.session);
  const sid = str(session.id);
  if (sid) r.binding = { sessionId: sid, ...(str(session.title) ? { title: str(session.title)! } : {}) };
  const usage = toUsage(shared.usage);
  if (usage) {
    // opencode-a2a reports one model call's usage (the newest): summed per call over the turn, the
    // same call's report replacing its earlier one; the context is the newest call's.
    turn.usageByMessage.set(str(obj(shared.stream).message_id) ?? "turn", usage);
    turn.usage = sumUsage([...turn.usageByMessage.values()]);
  }
  if (n.profile === "opencode") {
    const interrupt = obj(shared.interrupt);
    const requestId = str(interrupt.request_id);
    if (requestId && interrupt.phase === "asked") {
      const ask = interruptAsk(requestId, str(interrupt.type), obj(interrupt.details));
      if (ask) r.asked.push(ask);
    } else if (requestId && interrupt.phase === "resolved") {
      r.resolved.push({ requestId, resolution: str(interrupt.resolution) ?? "replied" });
    }
    const progress = obj(shared.progress);
    const streamMeta = obj(shared.stream);
    const mid = str(streamMeta.message_id);
    // A step starting is where an OpenCode message begins: show it even before its first chunk.
    if (progress.type === "step-start" && mid) r.events.push(...ensureAssistant(n, turn, mid, now));
    if (state === "auth-required" && !requestId) {
      // OpenCode's provider refused its credentials: opencode-a2a ends the task `auth-required`
      // (826cff1, execution/upstream_error_translator.py) — a failure to show as such, not a pause.
      const errorType = str(obj(obj(meta.opencode).error).type) ?? "UPSTREAM_UNAUTHORIZED";
      const text = turn.errorText ?? partsText(obj(status.message).parts);
      r.end = {
        state: "failed",
        message: text || "OpenCode's model provider needs authentication (check its credentials on the OpenCode side).",
        errorType,
      };
      return;
    }
    // A paused OpenCode task (`input-required` with an interrupt) goes on by itself once it is answered.
    if (!final && !isTerminal(state)) return;
  }
  const message = obj(status.message);
  const messageText = partsText(message.parts);
  if (n.profile === "generic" && isObj(status.message) && message.role !== "user" && arr(message.parts).length > 0) {
    r.events.push(...ensureAssistant(n, turn, turn.assistantId, now));
    r.events.push(
      ...showParts(turn, turn.assistantId, `status:${str(message.messageId) ?? state}`, arr(message.parts), false),
    );
  }
  if (isTerminal(state) && (final || n.profile === "generic")) {
    const opencodeError = obj(obj(meta.opencode).error);
    const errorType = str(opencodeError.type);
    r.end = {
      state,
      ...(messageText || turn.errorText ? { message: turn.errorText ?? messageText } : {}),
      ...(errorType ? { errorType } : {}),
    };
    return;
  }
  if (isPaused(state) && n.profile === "generic") {
    const taskId = turn.taskId;
    const auth = state === "auth-required";
    const prompt =
      messageText ||
      (auth ? "The agent needs you to authenticate before it can go on." : "The agent needs more input to go on.");
    if (taskId) r.asked.push({ kind: "input", taskId, prompt, auth });
    r.end = { state, message: prompt };
  }
}

export function applyTask(n: SessionNorm, turn: TurnState, task: Obj, now: number, r: FrameResult, ends: boolean) {
  const status = obj(task.status);
  const state = taskState(status.state);
  turn.lastState = state;
  if (n.profile === "generic") {
    // A task snapshot holds every artifact in full: each replaces what was shown of it.
    for (const a of arr(task.artifacts)) {
      const artifact = obj(a);
      const id = str(artifact.artifactId);
      if (!id) continue;
      r.events.push(...ensureAssistant(n, turn, turn.assistantId, now));
      r.events.push(...showParts(turn, turn.assistantId, `art:${id}`, arr(artifact.parts), false));
    }
  }
  // A polled snapshot of a finished or paused task ends the turn like a final status update; in a
  // stream a Task is only a snapshot (its status updates say where the task goes).
  const final = ends && (isTerminal(state) || isPaused(state));
  if (!ends) {
    const sid = str(obj(obj(obj(task.metadata).shared).session).id);
    if (sid) r.binding = { sessionId: sid };
    if (
      n.profile === "generic" &&
      isObj(status.message) &&
      obj(status.message).role !== "user" &&
      arr(obj(status.message).parts).length > 0 &&
      !isPaused(state)
    ) {
      r.events.push(...ensureAssistant(n, turn, turn.assistantId, now));
      r.events.push(
        ...showParts(
          turn,
          turn.assistantId,
          `status:${str(obj(status.message).messageId) ?? state}`,
          arr(obj(status.message).parts),
          false,
        ),
      );
    }
    return;
  }
  if (final || n.profile === "generic") applyStatus(n, turn, status, obj(task.metadata), final, now, r);
  else {
    const sid = str(obj(obj(obj(task.metadata).shared).session).id);
    if (sid) r.binding = { sessionId: sid };
  }
}
