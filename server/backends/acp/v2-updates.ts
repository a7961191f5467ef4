/**
 * ACP v2 (the draft of 2026-07-20, as `@agentclientprotocol/sdk` 2.4.0 types it in
 * `dist/v2/schema/types.gen.d.ts`) → the same canonical timeline as v1. Pure: fed `session/update`
 * params and permission requests of a v2 connection, it drives the v1 normalizer (./normalize.ts) and
 * says when a turn ended. What differs from v1, and how it is mapped:
 *
 * - Turns end on `state_update` `idle` (the `session/prompt` response is only an ack carrying the user
 *   message id); its `stopReason` and `usage` are what v1's prompt result carried. `running` and
 *   `requires_action` change nothing in the timeline. A repeated idle snapshot is not a new end.
 * - `agent_message` / `agent_thought` / `user_message` are upserts by `messageId` carrying the whole
 *   content: the block of that id is replaced (its text rewritten), or appended to when the new text
 *   only grows it.
 * - Tool calls arrive only as `tool_call_update` upserts by `toolCallId` (the first one creates it).
 * - Agent-owned terminals: `terminal_update` (an authoritative, base64 output snapshot, plus the exit)
 *   and `terminal_output_chunk` (base64 bytes appended) feed the tool of the same id, as codex-acp
 *   2.6.0 and claude-agent-acp 0.101.0 send them (terminal id = tool call id; see
 *   fixtures/*-acp-v2.jsonl).
 * - `plan_update` with an `items` plan replaces the plan (claude-agent-acp 0.101.0
 *   `dist/v2/session-update.js` turns v1's `plan` into it).
 * - Permission requests carry their own `title` and `description` and ask about a `subject` (a tool
 *   call patch); the title and description are what the prompt shows.
 * - A v1-only update (`tool_call`, `plan`, `current_mode_update`) on a v2 connection is a protocol
 *   error the caller shows the user.
 */
import type { Interrupt, TimelineEvent } from "@/lib/model";
import { obj, str, num, arr, type Obj } from "../shared/values";
import { applyUpdate, permissionRequest, type AcpSessionState } from "./normalize";
import { v2ConfigOptions } from "./v2-shapes";

/** Per-session v2 bookkeeping beside the normalizer's state. */
export interface V2State {
  /** Blocks by the agent's message id, so an upsert can replace the block it names. */
  blocks: Map<string, { kind: "text" | "reasoning"; messageId: string; blockId: string; text: string }>;
  /** Decoded terminal output per terminal id (= tool call id). */
  terminals: Map<string, string>;
  /** The last foreground state reported (a new session is idle). */
  foreground: "idle" | "running" | "requires_action";
}

export function newV2State(): V2State {
  return { blocks: new Map(), terminals: new Map(), foreground: "idle" };
}

/** What one v2 update did: timeline events, and whether it ended the foreground turn (and how). */
export interface V2Applied {
  events: TimelineEvent[];
  /** An idle transition: the v1 prompt result's shape (`stopReason`, `usage`), for `endTurn`. */
  ended?: { stopReason: string; usage?: unknown };
  /** The agent reported the work failed (`stopReason: "error"`), with its message. */
  failed?: string;
  /** A v1-shaped update on a v2 connection: to be shown as an error, never dropped silently. */
  protocolError?: string;
}

/** v1 update kinds that v2 removed (SDK 2.4.0 v2 `SessionUpdate` has none of them). */
const V1_ONLY = new Set(["tool_call", "plan", "current_mode_update"]);

const textOf = (content: unknown): string =>
  arr(content)
    .map((c) => (str(obj(c).type) === "text" ? (str(obj(c).text) ?? "") : ""))
    .join("");

function decode(data: string | undefined): string | undefined {
  if (data === undefined) return undefined;
  return Buffer.from(data, "base64").toString("utf8");
}

/** Remembers the block a chunk or upsert of `agentMessageId` went to (the normalizer's open block). */
function track(state: AcpSessionState, v2: V2State, agentMessageId: string | undefined) {
  const o = state.open;
  if (!agentMessageId || !o || o.agentMessageId !== agentMessageId) return;
  v2.blocks.set(agentMessageId, { kind: o.kind, messageId: o.messageId, blockId: o.id, text: o.text });
}

function upsertMessage(
  state: AcpSessionState,
  v2: V2State,
  u: Obj,
  kind: "text" | "reasoning",
  now: number,
): TimelineEvent[] {
  const id = str(u.messageId);
  const text = textOf(u.content);
  const chunkKind = kind === "text" ? "agent_message_chunk" : "agent_thought_chunk";
  const known = id ? v2.blocks.get(id) : undefined;
  if (!id || !known) {
    const events = applyUpdate(
      state,
      { sessionUpdate: chunkKind, messageId: id, content: { type: "text", text } },
      now,
    );
    track(state, v2, id);
    return events;
  }
  if (text === known.text) return [];
  const open = state.open?.id === known.blockId ? state.open : undefined;
  if (open && text.startsWith(known.text)) {
    const events = applyUpdate(
      state,
      { sessionUpdate: chunkKind, messageId: id, content: { type: "text", text: text.slice(known.text.length) } },
      now,
    );
    track(state, v2, id);
    return events;
  }
  // replace the block of that id whole
  known.text = text;
  if (open) open.text = text;
  const block =
    kind === "text"
      ? { id: known.blockId, kind: "text" as const, text }
      : { id: known.blockId, kind: "reasoning" as const, text, startedAt: open?.startedAt ?? now };
  return [{ type: "block.updated", messageId: known.messageId, block }];
}

function terminalOutput(
  state: AcpSessionState,
  v2: V2State,
  terminalId: string,
  full: string | undefined,
  exit?: number,
) {
  if (!state.tools.has(terminalId)) return [];
  const prev = v2.terminals.get(terminalId) ?? "";
  const meta: Obj = {};
  if (full !== undefined && full !== prev) {
    // an output snapshot that does not extend what was shown replaces it
    meta[full.startsWith(prev) ? "terminal_output_delta" : "terminal_output"] = {
      data: full.startsWith(prev) ? full.slice(prev.length) : full,
    };
    v2.terminals.set(terminalId, full);
  }
  if (exit !== undefined) meta.terminal_exit = { exit_code: exit };
  if (Object.keys(meta).length === 0) return [];
  return [{ sessionUpdate: "tool_call_update", toolCallId: terminalId, _meta: meta }];
}

/** One v2 `session/update`'s `update` → canonical events, and the turn's end when it is an idle transition. */
export function applyV2Update(state: AcpSessionState, v2: V2State, update: unknown, now: number): V2Applied {
  const u = obj(update);
  const kind = str(u.sessionUpdate) ?? "";
  if (V1_ONLY.has(kind))
    return { events: [], protocolError: `the agent sent ACP v1's "${kind}" update on an ACP v2 connection` };
  const feed = (v1: unknown[]): V2Applied => ({ events: v1.flatMap((x) => applyUpdate(state, x, now)) });
  switch (kind) {
    case "agent_message_chunk":
    case "agent_thought_chunk": {
      const events = applyUpdate(state, u, now);
      track(state, v2, str(u.messageId));
      return { events };
    }
    case "agent_message":
      return { events: upsertMessage(state, v2, u, "text", now) };
    case "agent_thought":
      return { events: upsertMessage(state, v2, u, "reasoning", now) };
    case "user_message":
      return feed([
        {
          sessionUpdate: "user_message_chunk",
          messageId: u.messageId,
          content: { type: "text", text: textOf(u.content) },
        },
      ]);
    case "terminal_update": {
      const id = str(u.terminalId);
      if (!id) return { events: [] };
      const out = obj(u.output);
      return feed(terminalOutput(state, v2, id, decode(str(out.data)), num(obj(u.exitStatus).exitCode)));
    }
    case "terminal_output_chunk": {
      const id = str(u.terminalId);
      const data = decode(str(u.data));
      if (!id || data === undefined) return { events: [] };
      return feed(terminalOutput(state, v2, id, (v2.terminals.get(id) ?? "") + data));
    }
    case "config_option_update":
      // v2 options name themselves `configId` (v1: `id`)
      return feed([{ ...u, configOptions: v2ConfigOptions(u.configOptions) }]);
    case "plan_update": {
      const plan = obj(u.plan);
      return str(plan.type) === "items" ? feed([{ sessionUpdate: "plan", entries: plan.entries }]) : { events: [] };
    }
    case "state_update": {
      const s = str(u.state);
      const was = v2.foreground;
      if (s === "running" || s === "requires_action") {
        v2.foreground = s;
        return { events: [] };
      }
      if (s !== "idle") return { events: [] };
      v2.foreground = "idle";
      // a repeated idle snapshot (or one after resume) is not a new completion (SDK 2.4.0 v2 docs)
      if (was === "idle") return { events: [] };
      const stopReason = str(u.stopReason) ?? "end_turn";
      if (stopReason === "error")
        return { events: [], failed: str(obj(u.error).message) ?? "The agent reported an error" };
      return { events: [], ended: { stopReason, ...(u.usage !== undefined ? { usage: u.usage } : {}) } };
    }
    default:
      // same shape in both versions: tool_call_update, config/info/usage/commands updates, notices,
      // compactions, user_message_chunk (extension `_…` kinds yield nothing)
      return feed([u]);
  }
}

/**
 * A v2 `session/request_permission` → the permission interrupt (as v1's), its title and description
 * the request's own and its tool call the `subject`'s. Null when malformed.
 */
export function v2PermissionRequest(
  state: AcpSessionState,
  params: unknown,
  interruptId: string,
  now: number,
): { interrupt: Interrupt; events: TimelineEvent[] } | null {
  const p = obj(params);
  const subject = obj(p.subject);
  const toolCall = str(subject.type) === "tool_call" ? obj(subject.toolCall) : {};
  const r = permissionRequest(state, { toolCall, options: p.options }, interruptId, now);
  if (!r) return null;
  const title = [str(p.title), str(p.description)].filter(Boolean).join(" — ");
  if (!title) return r;
  const interrupt = { ...r.interrupt, title };
  return {
    interrupt,
    events: r.events.map((e) => (e.type === "interrupt.requested" ? { ...e, interrupt } : e)),
  };
}
