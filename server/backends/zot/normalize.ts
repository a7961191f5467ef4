/**
 * zot's `zot rpc` events → canonical timeline events (docs/backends/zot.md), and those of its
 * successor terva (`terva rpc`), read in both shapes where they differ. Pure and defensive: no
 * I/O, the clock is passed in, and a frame that is malformed or unknown yields nothing, never a
 * throw. One `ZotTurn` per prompt (or compaction) holds what the mapping needs across frames; the
 * adapter feeds it every event of its session's process until `done`.
 *
 * A prompt is one user message (made by the console when it sends the prompt: zot's own
 * `user_message` is not shown twice) and one assistant message that collects every model call of
 * the run: a text block per call (`assistant_start` → `text_delta`… → `assistant_message` with the
 * final text), a tool block per call keyed by zot's `id` (`tool_use_start` / `tool_use_args`…
 * stream the arguments, `tool_call` has them parsed, `tool_progress` streams output, `tool_result`
 * ends it), `usage` per call plus zot's running `cumulative` totals, and notices for errors (with or
 * without a `message`), a reply cut at the output limit and extension notifications. What the frames
 * carry (a streamed JSON prefix, bash's exit line, edits, usage counts) is read in ./tools.ts.
 */
import type { PromptPart } from "@/lib/api";
import type { MessageError, MessageInfo, ModelRef, TimelineEvent, ToolBlock, ToolStatus, Usage } from "@/lib/model";
import { promptBlocks } from "../shared/prompt-blocks";
import { canonicalTool } from "../shared/tool-names";
import { arr, isObj, obj, str, type Obj } from "../shared/values";
import { addUsage, contentText, editDiffs, parsePartialJson, splitExit, toolTitle, usageOf } from "./tools";

/** The running totals a session's usage starts from (what earlier processes of the session used). */
export type UsageBase = Pick<
  Usage,
  "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "costUsd" | "reasoningTokens"
>;

interface ToolState {
  block: ToolBlock;
  /** The argument JSON as streamed so far (`tool_use_args`). */
  raw: string;
}

/** What the mapping keeps for one prompt (or compaction) of one session. */
export interface ZotTurn {
  sessionId: string;
  info: MessageInfo;
  blocks: number;
  /** The text block of the current model call (a new one after every `assistant_start`). */
  text?: { id: string; text: string };
  tools: Map<string, ToolState>;
  /** This run's usage (every call), on the message. */
  usage?: Usage;
  /** The last non-auxiliary call's context size. */
  contextTokens?: number;
  contextWindow?: number;
  /** Usage of the session before this process (zot's `cumulative` starts at 0 in every process). */
  base: UsageBase;
  /** The run's error (a `turn_end {stop:"error"}`), if any. */
  error?: string;
  /** The last non-fatal `error` event's message (a compaction that ends without a summary failed with it). */
  lastError?: string;
  /** Seen `turn_end {stop:"aborted"}`, or the console asked to abort. */
  aborted: boolean;
  /** For a compaction: the divider (a notice in a user-role message, as compactions show) and whether it finished. */
  compaction?: { messageId: string; blockId: string; done: boolean };
}

export const GENERIC_ERROR = "zot reported an error without details.";
const ARG_STREAM_LIMIT = 16_000;

function newTurn(sessionId: string, info: MessageInfo, opts: { base?: UsageBase; contextWindow?: number }): ZotTurn {
  return {
    sessionId,
    info,
    blocks: 0,
    tools: new Map(),
    base: opts.base ?? { inputTokens: 0, outputTokens: 0 },
    ...(opts.contextWindow ? { contextWindow: opts.contextWindow } : {}),
    aborted: false,
  };
}

/**
 * A prompt starts: the user message (with the console's ids) and the empty assistant message of
 * the run. `notice` (e.g. "a new zot process was given the earlier conversation") opens the reply.
 */
export function beginTurn(
  sessionId: string,
  ids: { userId: string; assistantId: string },
  parts: PromptPart[],
  now: number,
  opts: {
    model?: ModelRef;
    base?: UsageBase;
    contextWindow?: number;
    notice?: { level: "info" | "warn"; text: string };
  } = {},
): { turn: ZotTurn; events: TimelineEvent[] } {
  const info: MessageInfo = {
    id: ids.assistantId,
    sessionId,
    role: "assistant",
    createdAt: now + 1,
    parentId: ids.userId,
    ...(opts.model ? { model: opts.model } : {}),
  };
  const turn = newTurn(sessionId, info, opts);
  const events: TimelineEvent[] = [
    {
      type: "message.updated",
      message: {
        id: ids.userId,
        sessionId,
        role: "user",
        createdAt: now,
        ...(opts.model ? { model: opts.model } : {}),
      },
    },
  ];
  for (const block of promptBlocks(parts, ids.userId, "image"))
    events.push({ type: "block.updated", messageId: ids.userId, block });
  // +1 ms keeps the reply after the prompt when messages are ordered by time.
  events.push({ type: "message.updated", message: info });
  if (opts.notice) events.push(notice(turn, opts.notice.level, opts.notice.text));
  return { turn, events };
}

/**
 * `compact` starts: a divider (a compaction notice in a user-role message, like OpenCode's) and the
 * summary message (`summary: true`) that `compact_done` fills.
 */
export function beginCompaction(
  sessionId: string,
  ids: { markerId: string; summaryId: string },
  now: number,
  opts: { model?: ModelRef; base?: UsageBase; contextWindow?: number } = {},
): { turn: ZotTurn; events: TimelineEvent[] } {
  const info: MessageInfo = {
    id: ids.summaryId,
    sessionId,
    role: "assistant",
    createdAt: now + 1,
    summary: true,
    parentId: ids.markerId,
    ...(opts.model ? { model: opts.model } : {}),
  };
  const turn = newTurn(sessionId, info, opts);
  turn.compaction = { messageId: ids.markerId, blockId: `${ids.markerId}-b0`, done: false };
  return {
    turn,
    events: [
      { type: "message.updated", message: { id: ids.markerId, sessionId, role: "user", createdAt: now } },
      marker(turn, "Compacting the conversation…"),
      { type: "message.updated", message: info },
    ],
  };
}

function marker(turn: ZotTurn, text: string): TimelineEvent {
  const c = turn.compaction!;
  return {
    type: "block.updated",
    messageId: c.messageId,
    block: { id: c.blockId, kind: "notice", level: "info", text, code: "compaction" },
  };
}

function blockId(turn: ZotTurn): string {
  return `${turn.info.id}-b${turn.blocks++}`;
}

function notice(
  turn: ZotTurn,
  level: "info" | "warn" | "error",
  text: string,
  code?: "compaction" | "abort" | "error",
): TimelineEvent {
  return {
    type: "block.updated",
    messageId: turn.info.id,
    block: { id: blockId(turn), kind: "notice", level, text, ...(code ? { code } : {}) },
  };
}

/** A notice added to the turn's message (the adapter's own: a restart, a refused model switch). */
export function turnNotice(turn: ZotTurn, level: "info" | "warn" | "error", text: string): TimelineEvent[] {
  return [notice(turn, level, text)];
}

function toolUpdate(turn: ZotTurn, t: ToolState): TimelineEvent {
  return { type: "block.updated", messageId: turn.info.id, block: t.block };
}

function ensureTool(
  turn: ZotTurn,
  id: string,
  name: string | undefined,
  now: number,
): { t: ToolState; created: boolean } {
  const have = turn.tools.get(id);
  if (have) {
    if (name && have.block.rawTool !== name) have.block = { ...have.block, rawTool: name, tool: canonicalTool(name) };
    return { t: have, created: false };
  }
  const raw = name ?? "tool";
  const t: ToolState = {
    raw: "",
    block: {
      id: blockId(turn),
      kind: "tool",
      callId: id,
      tool: canonicalTool(raw),
      rawTool: raw,
      status: "pending",
      input: {},
      startedAt: now,
    },
  };
  turn.tools.set(id, t);
  return { t, created: true };
}

function onUsage(turn: ZotTurn, f: Obj): TimelineEvent[] {
  // zot: the call's counts at the top level; terva: nested under `usage` (beside `cumulative`).
  const call = usageOf(isObj(f.usage) ? f.usage : f);
  turn.usage = addUsage(turn.usage, call);
  if (f.auxiliary !== true)
    turn.contextTokens =
      call.inputTokens + (call.cacheReadTokens ?? 0) + (call.cacheWriteTokens ?? 0) + call.outputTokens;
  const withContext = (u: Usage): Usage => ({
    ...u,
    ...(turn.contextTokens !== undefined ? { contextTokens: turn.contextTokens } : {}),
    ...(turn.contextWindow ? { contextWindow: turn.contextWindow } : {}),
  });
  turn.info = { ...turn.info, usage: withContext(turn.usage) };
  const events: TimelineEvent[] = [{ type: "message.updated", message: turn.info }];
  const cumulative = isObj(f.cumulative) ? usageOf(f.cumulative) : undefined;
  if (cumulative) events.push({ type: "usage.updated", usage: withContext(addUsage(turn.base as Usage, cumulative)) });
  return events;
}

function onToolResult(turn: ZotTurn, f: Obj, now: number): TimelineEvent[] {
  const id = str(f.id);
  if (!id) return [];
  const { t } = ensureTool(turn, id, undefined, now);
  const text = contentText(f.content);
  const isError = f.is_error === true;
  const b: ToolBlock = { ...t.block, endedAt: now };
  if (b.tool === "bash") {
    // A failed command's output matters as much as a good one's.
    const { output, exitCode } = splitExit(text);
    b.output = output;
    if (exitCode !== undefined) b.exitCode = exitCode;
  } else if (!isError) {
    const diff = editDiffs(b.rawTool, b.input);
    if (diff) b.diff = diff;
    // zot's edit result repeats the change as a line diff after its first line: the diff shows it.
    b.output = diff ? text.split("\n")[0]! : text;
  } else {
    delete b.output;
  }
  if (isError) {
    b.status = turn.aborted || /^aborted: /.test(text) ? "cancelled" : "error";
    b.error = text.trim().slice(0, 2000) || "The tool failed";
  } else {
    b.status = "completed";
  }
  t.block = b;
  return [toolUpdate(turn, t)];
}

function onText(turn: ZotTurn, delta: string): TimelineEvent[] {
  if (!delta) return [];
  const events: TimelineEvent[] = [];
  if (!turn.text) {
    turn.text = { id: blockId(turn), text: "" };
    events.push({
      type: "block.updated",
      messageId: turn.info.id,
      block: { id: turn.text.id, kind: "text", text: "" },
    });
  }
  turn.text.text += delta;
  events.push({ type: "block.delta", messageId: turn.info.id, blockId: turn.text.id, field: "text", delta });
  return events;
}

/**
 * `assistant_message`: the final text of this call replaces what the deltas built, if it differs
 * (zot: `{content, time}`; terva: `{message: {role, content, time}}`).
 */
function onAssistantMessage(turn: ZotTurn, f: Obj): TimelineEvent[] {
  const text = arr(isObj(f.message) ? f.message.content : f.content)
    .map((b) => obj(b))
    .filter((b) => b.type === "text")
    .map((b) => str(b.text) ?? "")
    .join("");
  if (!text) return [];
  if (turn.text && turn.text.text === text) return [];
  if (!turn.text) turn.text = { id: blockId(turn), text };
  turn.text.text = text;
  return [{ type: "block.updated", messageId: turn.info.id, block: { id: turn.text.id, kind: "text", text } }];
}

function recordError(turn: ZotTurn, message: string | undefined): TimelineEvent[] {
  const text = message?.trim() || GENERIC_ERROR;
  if (turn.error === text) return [];
  if (message?.trim() || !turn.error) turn.error = text;
  return [notice(turn, "error", text, "error")];
}

/** One zot event of the turn's process → canonical events. `done` is the adapter's: see `endTurn`. */
export function applyZotEvent(turn: ZotTurn, frame: unknown, now: number): TimelineEvent[] {
  try {
    return apply(turn, obj(frame), now);
  } catch {
    return [];
  }
}

function apply(turn: ZotTurn, f: Obj, now: number): TimelineEvent[] {
  switch (f.type) {
    case "assistant_start":
      turn.text = undefined;
      return [];
    case "text_delta":
      return onText(turn, str(f.delta) ?? "");
    case "assistant_message":
      return onAssistantMessage(turn, f);
    case "tool_use_start": {
      const id = str(f.id);
      if (!id) return [];
      const { t, created } = ensureTool(turn, id, str(f.name), now);
      return created ? [toolUpdate(turn, t)] : [];
    }
    case "tool_use_args": {
      const id = str(f.id);
      const delta = str(f.delta);
      if (!id || delta === undefined) return [];
      const { t } = ensureTool(turn, id, undefined, now);
      if (t.block.status !== "pending") return [];
      t.raw += delta;
      if (t.raw.length > ARG_STREAM_LIMIT) return [];
      const input = parsePartialJson(t.raw);
      if (!input) return [];
      const title = toolTitle(t.block.rawTool, input);
      t.block = { ...t.block, input, ...(title ? { title } : {}) };
      return [toolUpdate(turn, t)];
    }
    case "tool_use_end":
      return [];
    case "tool_call": {
      const id = str(f.id);
      if (!id) return [];
      const { t } = ensureTool(turn, id, str(f.name), now);
      const input = isObj(f.args) ? f.args : (parsePartialJson(t.raw) ?? {});
      const title = toolTitle(t.block.rawTool, input);
      t.block = { ...t.block, input, status: "running", ...(title ? { title } : {}) };
      return [toolUpdate(turn, t)];
    }
    case "tool_progress": {
      const id = str(f.id);
      const text = str(f.text);
      if (!id || !text) return [];
      const { t, created } = ensureTool(turn, id, undefined, now);
      const events: TimelineEvent[] = [];
      if (t.block.status === "pending") {
        t.block = { ...t.block, status: "running" };
        events.push(toolUpdate(turn, t));
      } else if (created) events.push(toolUpdate(turn, t));
      // bash streams raw output chunks; other tools report progress lines.
      const delta = t.block.tool === "bash" || text.endsWith("\n") ? text : `${text}\n`;
      t.block = { ...t.block, output: (t.block.output ?? "") + delta };
      events.push({ type: "block.delta", messageId: turn.info.id, blockId: t.block.id, field: "output", delta });
      return events;
    }
    case "tool_result":
      return onToolResult(turn, f, now);
    case "usage":
      return onUsage(turn, f);
    case "turn_end": {
      const stop = str(f.stop);
      if (stop === "aborted") turn.aborted = true;
      if (stop === "error") return recordError(turn, str(f.error));
      if (stop === "length")
        return [notice(turn, "warn", "The reply was cut off: the model reached its output limit.")];
      return [];
    }
    case "error": {
      // terva's `error {error}` is the prompt's failure (terva-sh/terva docs/rpc.md): `done` follows.
      if (typeof f.error === "string") {
        turn.lastError = f.error.trim() || GENERIC_ERROR;
        return recordError(turn, f.error);
      }
      // zot's `error {message}` is non-fatal (its RPC document): a notice, and the reply goes on. A
      // run that fails says so in `turn_end {stop: "error"}`, whose error this often repeats.
      const message = str(f.message)?.trim();
      turn.lastError = message || GENERIC_ERROR;
      if (message && message === turn.error) return [];
      return [notice(turn, "warn", message ? `zot reported an error: ${message}` : GENERIC_ERROR, "error")];
    }
    case "user_message_rejected": {
      // terva: a `BeforeUserMessage` guard refused the prompt before the model saw it; `done` follows.
      const reason = str(f.text)?.trim() || "no reason given";
      const prompt = str(f.rejected)?.trim();
      const quoted = prompt ? ` (“${prompt.length > 80 ? `${prompt.slice(0, 80)}…` : prompt}”)` : "";
      return recordError(turn, `The agent refused the prompt${quoted}: ${reason}`);
    }
    case "compact_done": {
      if (!turn.compaction) return [];
      turn.compaction.done = true;
      const summary = str(f.summary) ?? "";
      const events: TimelineEvent[] = [marker(turn, "Conversation compacted: zot goes on from this summary")];
      if (summary)
        events.push({
          type: "block.updated",
          messageId: turn.info.id,
          block: { id: blockId(turn), kind: "text", text: summary },
        });
      return events;
    }
    case "ext_notify": {
      const message = str(f.message);
      if (!message) return [];
      const level = str(f.level)?.toLowerCase();
      return [
        notice(
          turn,
          level === "error" ? "error" : level === "warn" || level === "warning" ? "warn" : "info",
          `${str(f.extension) ?? "extension"}: ${message}`,
        ),
      ];
    }
    case "ext_display": {
      const text = str(f.text);
      return text ? [notice(turn, "info", `${str(f.extension) ?? "extension"}: ${text}`)] : [];
    }
    default:
      // user_message (the console shows its own), turn_start, done (see endTurn), unknown types.
      return [];
  }
}

/**
 * The run is over (`done`, a compaction's end, or the process died): open tools end (cancelled when
 * stopped, failed otherwise), the message is completed, with the run's error or "Stopped".
 */
export function endTurn(
  turn: ZotTurn,
  now: number,
  opts: { aborted?: boolean; failure?: MessageError } = {},
): TimelineEvent[] {
  const aborted = opts.aborted === true || turn.aborted;
  const events: TimelineEvent[] = [];
  for (const t of turn.tools.values()) {
    if (t.block.status !== "pending" && t.block.status !== "running") continue;
    const status: ToolStatus = aborted && !opts.failure ? "cancelled" : "error";
    t.block = {
      ...t.block,
      status,
      endedAt: now,
      ...(status === "error"
        ? { error: opts.failure?.message ?? turn.error ?? "The run ended before the tool finished" }
        : {}),
    };
    events.push(toolUpdate(turn, t));
  }
  if (opts.failure) events.push(notice(turn, "error", opts.failure.message, "error"));
  let error: MessageError | undefined = opts.failure;
  if (!error && aborted) error = { name: "Aborted", message: "Stopped", aborted: true };
  if (!error && turn.error) error = { name: "ZotError", message: turn.error };
  if (!error && turn.compaction && !turn.compaction.done)
    error = { name: "ZotError", message: turn.lastError ?? "zot ended the compaction without a summary" };
  turn.info = { ...turn.info, completedAt: now, ...(error ? { error } : {}) };
  events.push({ type: "message.updated", message: turn.info });
  if (turn.compaction && !turn.compaction.done)
    events.push(marker(turn, aborted && !opts.failure ? "Compaction stopped" : "Compaction failed"));
  turn.text = undefined;
  return events;
}
