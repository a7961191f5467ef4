/**
 * The A2A normalizer's per-session state (./normalize.ts): the task states, what a turn has shown so
 * far, what applying a frame returns, and the assistant message a turn's content goes to.
 */
import type { MessageInfo, ModelRef, Question, TimelineEvent, ToolBlock, Usage } from "@/lib/model";
import { str, type Obj } from "../shared/values";

export type Profile = "generic" | "opencode";

/** A2A 0.3 task states (`TaskState`), plus what an unrecognized value becomes. */
export type TaskState =
  | "submitted"
  | "working"
  | "input-required"
  | "completed"
  | "canceled"
  | "failed"
  | "rejected"
  | "auth-required"
  | "unknown";
const STATES: readonly TaskState[] = [
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "rejected",
  "auth-required",
  "unknown",
];
const TERMINAL: ReadonlySet<TaskState> = new Set(["completed", "canceled", "failed", "rejected", "unknown"]);
/** States in which the task waits for the user's next message on the same task. */
const PAUSED: ReadonlySet<TaskState> = new Set(["input-required", "auth-required"]);

export const isTerminal = (s: TaskState) => TERMINAL.has(s);
export const isPaused = (s: TaskState) => PAUSED.has(s);

export function taskState(v: unknown): TaskState {
  const s = str(v);
  // Protobuf-JSON spellings (TASK_STATE_CANCELLED …) from agents that mix dialects.
  const norm = s
    ?.replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replace(/_/g, "-")
    .replace("cancelled", "canceled");
  return STATES.find((x) => x === norm) ?? "unknown";
}

/* ------------------------------------------------------------------------------ state */

interface ArtifactView {
  /** Block ids of its parts, in order (adjacent text parts share one block). */
  blocks: string[];
}

/** What a turn (one task, possibly paused and answered) has shown so far. */
export interface TurnState {
  userMessageId: string;
  /** Generic content goes to this assistant message (a new one after each answered pause). */
  assistantId: string;
  assistantShown: boolean;
  assistantCreatedAt: number;
  model?: ModelRef;
  taskId?: string;
  contextId?: string;
  /** generic: artifact id → its blocks. */
  artifacts: Map<string, ArtifactView>;
  /** Text shown per block (for deltas and replacements). */
  texts: Map<string, string>;
  /** Which message each block is in. */
  blockMessage: Map<string, string>;
  /** opencode: assistant messages shown, by OpenCode message id. */
  messages: Map<string, MessageInfo>;
  /** opencode: tool blocks by call id (snapshots replace). */
  tools: Map<string, ToolBlock>;
  /** opencode: highest `shared.stream.sequence` applied (replays after a reconnect are dropped). */
  lastSequence: number;
  /** The agent's failure text (opencode: the `<task>:error` artifact). */
  errorText?: string;
  usage?: Usage;
  /** opencode: usage by the OpenCode message (one model call) it belongs to; the turn's is their sum. */
  usageByMessage: Map<string, Usage>;
  state?: TaskState;
  /** The last state a status update or snapshot said (the stream may close on `input-required`). */
  lastState?: TaskState;
  done: boolean;
}

export interface SessionNorm {
  sessionId: string;
  profile: Profile;
  /** The last `createdAt` handed out: messages of a turn are ordered by it. */
  clock: number;
  turn?: TurnState;
}

export function newSessionNorm(sessionId: string, profile: Profile): SessionNorm {
  return { sessionId, profile, clock: 0 };
}

export function tick(n: SessionNorm, now: number): number {
  n.clock = Math.max(now, n.clock + 1);
  return n.clock;
}

/* ------------------------------------------------------------------------------ results */

/** An interrupt the agent raised (opencode: `shared.interrupt` with phase `asked`; generic: a paused task). */
export type InterruptAsk =
  | { kind: "permission"; requestId: string; permission: string; patterns: string[]; details: Obj }
  | { kind: "question"; requestId: string; questions: Question[] }
  | { kind: "input"; taskId: string; prompt: string; auth: boolean };

export interface TurnEnd {
  state: TaskState;
  /** The agent's words about it (failed / rejected / paused). */
  message?: string;
  /** opencode: `metadata.opencode.error.type`. */
  errorType?: string;
}

export interface FrameResult {
  events: TimelineEvent[];
  asked: InterruptAsk[];
  resolved: { requestId: string; resolution: string }[];
  /** The task and context the frame belongs to (learned from the first frame). */
  taskId?: string;
  contextId?: string;
  /** opencode: the OpenCode session this turn runs in (`metadata.shared.session`). */
  binding?: { sessionId: string; title?: string };
  /** The task reached a terminal or paused state. */
  end?: TurnEnd;
}

export const emptyResult = (): FrameResult => ({ events: [], asked: [], resolved: [] });

export function ensureAssistant(n: SessionNorm, turn: TurnState, id: string, now: number): TimelineEvent[] {
  if (n.profile === "opencode") {
    if (turn.messages.has(id)) return [];
    const info: MessageInfo = {
      id,
      sessionId: n.sessionId,
      role: "assistant",
      createdAt: tick(n, now),
      parentId: turn.userMessageId,
      ...(turn.model ? { model: turn.model } : {}),
    };
    turn.messages.set(id, info);
    return [{ type: "message.updated", message: info }];
  }
  if (turn.assistantShown) return [];
  turn.assistantShown = true;
  turn.assistantCreatedAt = tick(n, now);
  const info: MessageInfo = {
    id,
    sessionId: n.sessionId,
    role: "assistant",
    createdAt: turn.assistantCreatedAt,
    parentId: turn.userMessageId,
    ...(turn.model ? { model: turn.model } : {}),
  };
  return [{ type: "message.updated", message: info }];
}

export function closeTurn(turn: TurnState, end: TurnEnd) {
  turn.state = end.state;
  if (!isPaused(end.state)) turn.done = true;
}

export function lastAssistant(n: SessionNorm, turn: TurnState): MessageInfo | undefined {
  if (n.profile === "opencode") return [...turn.messages.values()].at(-1);
  if (!turn.assistantShown) return undefined;
  return {
    id: turn.assistantId,
    sessionId: n.sessionId,
    role: "assistant",
    createdAt: turn.assistantCreatedAt,
    parentId: turn.userMessageId,
    ...(turn.model ? { model: turn.model } : {}),
  };
}
