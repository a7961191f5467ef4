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
import type {
  Block,
  Interrupt,
  MessageError,
  MessageInfo,
  ModelRef,
  Question,
  TimelineEvent,
  ToolBlock,
  ToolStatus,
  Usage,
} from "@/lib/model";
import { canonicalTool } from "../shared/tool-names";
import { arr, isObj, num, obj, str, type Obj } from "../shared/values";

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

/** Largest text a data part is shown with; larger JSON is cut. */
const MAX_DATA_TEXT = 4000;
/** Largest inline file (bytes, base64-decoded size) turned into a `data:` link. */
const MAX_INLINE_FILE = 2 * 1024 * 1024;

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

function tick(n: SessionNorm, now: number): number {
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

const emptyResult = (): FrameResult => ({ events: [], asked: [], resolved: [] });

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

function ensureAssistant(n: SessionNorm, turn: TurnState, id: string, now: number): TimelineEvent[] {
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

/** Text shown in `blockId` becomes `text`: a delta when it extends what is shown, else a replacement. */
function setText(
  turn: TurnState,
  messageId: string,
  blockId: string,
  kind: "text" | "reasoning",
  text: string,
): TimelineEvent[] {
  const shown = turn.texts.get(blockId);
  turn.texts.set(blockId, text);
  turn.blockMessage.set(blockId, messageId);
  if (shown !== undefined && text.startsWith(shown)) {
    const delta = text.slice(shown.length);
    return delta ? [{ type: "block.delta", messageId, blockId, field: "text", delta }] : [];
  }
  return [{ type: "block.updated", messageId, block: { id: blockId, kind, text } }];
}

function appendText(
  turn: TurnState,
  messageId: string,
  blockId: string,
  kind: "text" | "reasoning",
  delta: string,
): TimelineEvent[] {
  return setText(turn, messageId, blockId, kind, (turn.texts.get(blockId) ?? "") + delta);
}

/* ------------------------------------------------------------------------------ parts */

/** Text of the text parts of a message or artifact (data and file parts are left out). */
export function partsText(parts: unknown): string {
  return arr(parts)
    .map((p) => {
      const o = obj(p);
      return (o.kind === "text" || o.kind === undefined) && typeof o.text === "string" ? o.text : "";
    })
    .join("");
}

function dataText(data: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(data, null, 2) ?? "null";
  } catch {
    json = "(unreadable data)";
  }
  return json.length > MAX_DATA_TEXT
    ? `${json.slice(0, MAX_DATA_TEXT)}\n… (${json.length - MAX_DATA_TEXT} more characters)`
    : json;
}

/** A non-text part as a block: a file link or a notice; never markup. */
function partBlock(part: Obj, id: string): Block | undefined {
  if (part.kind === "data")
    return { id, kind: "notice", level: "info", text: `Data from the agent:\n${dataText(part.data)}` };
  if (part.kind === "file") {
    const f = obj(part.file);
    const name = str(f.name) ?? "file";
    const mime = str(f.mimeType) ?? "application/octet-stream";
    const uri = str(f.uri);
    if (uri && /^https?:\/\//i.test(uri)) return { id, kind: "file", name, mime, url: uri };
    const bytes = str(f.bytes);
    if (bytes && bytes.length * 0.75 <= MAX_INLINE_FILE && /^[A-Za-z0-9+/=\s]*$/.test(bytes))
      return { id, kind: "file", name, mime, url: `data:${mime};base64,${bytes.replace(/\s+/g, "")}` };
    return {
      id,
      kind: "notice",
      level: "info",
      text: `The agent sent a file (${name}, ${mime}) that cannot be shown here.`,
    };
  }
  return undefined;
}

/**
 * Generic: parts of an artifact or message shown in `messageId` under `prefix`. With `append`, the
 * parts continue the ones already shown (a text part extends the last text block); without, they
 * replace them (blocks no longer used are removed).
 */
function showParts(
  turn: TurnState,
  messageId: string,
  prefix: string,
  parts: unknown[],
  append: boolean,
): TimelineEvent[] {
  const view = turn.artifacts.get(prefix) ?? { blocks: [] };
  const events: TimelineEvent[] = [];
  const old = view.blocks;
  const blocks: string[] = append ? [...old] : [];
  const texts = new Map<string, string>();
  for (const raw of parts) {
    const part = obj(raw);
    const text =
      (part.kind === "text" || part.kind === undefined) && typeof part.text === "string" ? part.text : undefined;
    const last = blocks.at(-1);
    if (text !== undefined) {
      // Adjacent text parts (and a text chunk appended to a text part) are one block.
      if (last && !last.endsWith(":x")) {
        texts.set(last, (texts.get(last) ?? turn.texts.get(last) ?? "") + text);
      } else {
        const id = `${prefix}:${blocks.length}`;
        blocks.push(id);
        texts.set(id, text);
      }
      continue;
    }
    const id = `${prefix}:${blocks.length}:x`;
    const b = partBlock(part, id);
    if (!b) continue;
    blocks.push(id);
    turn.blockMessage.set(id, messageId);
    events.push({ type: "block.updated", messageId, block: b });
  }
  for (const [id, text] of texts) events.push(...setText(turn, messageId, id, "text", text));
  if (!append) {
    for (const id of old) {
      if (blocks.includes(id)) continue;
      turn.texts.delete(id);
      events.push({ type: "block.removed", messageId: turn.blockMessage.get(id) ?? messageId, blockId: id });
    }
  }
  view.blocks = blocks;
  turn.artifacts.set(prefix, view);
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

function closeTurn(turn: TurnState, end: TurnEnd) {
  turn.state = end.state;
  if (!isPaused(end.state)) turn.done = true;
}

function applyArtifact(n: SessionNorm, turn: TurnState, f: Obj, now: number, r: FrameResult) {
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

function applyOpencodeChunk(
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

function applyStatus(
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

function applyTask(n: SessionNorm, turn: TurnState, task: Obj, now: number, r: FrameResult, ends: boolean) {
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

export function interruptAsk(requestId: string, type: string | undefined, details: Obj): InterruptAsk | undefined {
  if (type === "permission") {
    return {
      kind: "permission",
      requestId,
      permission: str(details.permission) ?? "permission",
      patterns: arr(details.patterns).filter((p): p is string => typeof p === "string"),
      details,
    };
  }
  if (type === "question") {
    const questions: Question[] = arr(details.questions).map((q) => {
      const o = obj(q);
      const header = str(o.header);
      return {
        question: str(o.question) ?? header ?? "Question",
        ...(header ? { header } : {}),
        options: arr(o.options).flatMap((x) => {
          const op = obj(x);
          const label = str(op.label) ?? str(op.value);
          const description = str(op.description);
          return label ? [{ label, ...(description ? { description } : {}) }] : [];
        }),
      };
    });
    return questions.length ? { kind: "question", requestId, questions } : undefined;
  }
  return undefined;
}

/** Usage of several model calls as one: tokens and cost summed, the context of the last call. */
export function sumUsage(calls: readonly Usage[]): Usage | undefined {
  const last = calls.at(-1);
  if (!last) return undefined;
  const sum = (f: (u: Usage) => number | undefined) => calls.reduce((a, u) => a + (f(u) ?? 0), 0);
  const has = (f: (u: Usage) => number | undefined) => calls.some((u) => f(u) !== undefined);
  return {
    inputTokens: sum((u) => u.inputTokens),
    outputTokens: sum((u) => u.outputTokens),
    ...(has((u) => u.reasoningTokens) ? { reasoningTokens: sum((u) => u.reasoningTokens) } : {}),
    ...(has((u) => u.cacheReadTokens) ? { cacheReadTokens: sum((u) => u.cacheReadTokens) } : {}),
    ...(has((u) => u.cacheWriteTokens) ? { cacheWriteTokens: sum((u) => u.cacheWriteTokens) } : {}),
    ...(has((u) => u.costUsd) ? { costUsd: sum((u) => u.costUsd) } : {}),
    contextTokens: last.contextTokens ?? last.inputTokens + last.outputTokens,
  };
}

export function toUsage(raw: unknown): Usage | undefined {
  const u = obj(raw);
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const cache = obj(u.cache_tokens);
  const usage: Usage = { inputTokens: input ?? 0, outputTokens: output ?? 0 };
  const reasoning = num(u.reasoning_tokens);
  if (reasoning) usage.reasoningTokens = reasoning;
  const read = num(cache.read_tokens);
  if (read) usage.cacheReadTokens = read;
  const write = num(cache.write_tokens);
  if (write) usage.cacheWriteTokens = write;
  const cost = num(u.cost);
  if (cost !== undefined) usage.costUsd = cost;
  return usage;
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

function lastAssistant(n: SessionNorm, turn: TurnState): MessageInfo | undefined {
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

/* ------------------------------------------------------------------------------ interrupts */

const PERMISSION_OPTIONS = [
  { id: "once", label: "Allow once", kind: "allow_once" as const },
  { id: "always", label: "Always allow", kind: "allow_always" as const },
  { id: "reject", label: "Reject", kind: "reject" as const },
];

/** The canonical interrupt of an ask. */
export function toInterrupt(n: SessionNorm, ask: InterruptAsk, id: string, now: number): Interrupt {
  const turn = n.turn;
  const messageId = turn ? lastAssistant(n, turn)?.id : undefined;
  const base = { id, sessionId: n.sessionId, createdAt: now, ...(messageId ? { messageId } : {}) };
  if (ask.kind === "permission") {
    const command = str(ask.details.command) ?? ask.patterns[0];
    const running = turn
      ? [...turn.tools.values()].filter((t) => t.status === "running" || t.status === "pending")
      : [];
    const tool = running.find((t) => t.rawTool === ask.permission) ?? (running.length === 1 ? running[0] : undefined);
    return {
      ...base,
      kind: "permission",
      ...(tool ? { toolCallId: tool.callId } : {}),
      title: command ? `${ask.permission}: ${command}` : `Allow ${ask.permission}?`,
      permission: { action: ask.permission, patterns: ask.patterns, options: PERMISSION_OPTIONS },
    };
  }
  if (ask.kind === "question")
    return { ...base, kind: "question", title: ask.questions[0]?.question ?? "Question", questions: ask.questions };
  return {
    ...base,
    kind: "input",
    title: ask.auth ? "Authentication needed" : "The agent asks",
    input: { prompt: ask.prompt, ...(ask.auth ? { sensitive: true } : {}) },
  };
}
