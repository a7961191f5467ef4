/**
 * Opal's `agent/event` notifications → canonical timeline events (docs/backends/opal.md; the events
 * as matteing/opal's `opal/lib/opal/rpc/server.ex` serializes them, at the commit
 * docs/backends/opal.md names; `session/history` in ./history.ts, tool results in ./tool-results.ts
 * and ./diffs.ts). Pure and defensive: no I/O, the clock and ids are passed in, and a malformed or
 * unknown event yields a notice or nothing, never a throw.
 *
 * One `OpalTurn` per run holds what the mapping needs across events: the assistant message that
 * collects the whole run (every model call's thinking and text, every tool), the open thinking
 * block (Opal sends no end: it ends at the next `message_start`, tool start or `turn_end`), the
 * open text block, the tools by `call_id` (or by name for legacy tools with an empty `call_id`),
 * and the usage. Sub-agent events (`sub_agent_event {parent_call_id, sub_session_id, inner}`) are
 * returned apart, for the child session's own turn.
 */
import type { MessageError, MessageInfo, ModelRef, TimelineEvent, ToolBlock, ToolName, Usage } from "@/lib/model";
import { canonicalTool, TOOL_NAMES } from "../shared/tool-names";
import { isObj, num, obj, str, type Obj } from "../shared/values";
import { diffFiles, structuredDiff } from "./diffs";
import { completeTaskSnapshot, tasksTodos, toolOutputText, unquoteElixir } from "./tool-results";
import type { OpalTurn } from "./turn-state";

/** Opal's tool names (`opal/lib/opal/tool/*.ex`) → canonical tools. */
const OPAL_TOOLS: Readonly<Record<string, ToolName>> = {
  ...TOOL_NAMES,
  sh: "bash",
  zsh: "bash",
  read_file: "read",
  write_file: "write",
  edit_file: "edit",
  sub_agent: "task",
  tasks: "todo",
  ask_user: "question",
  ask: "question",
};

export const opalTool = (name: string): ToolName => canonicalTool(name, OPAL_TOOLS);

/** What one event asks the adapter to do beyond publishing `events`. */
export interface Applied {
  events: TimelineEvent[];
  /** The run is over (`agent_end`, `agent_abort`, or `error`: Opal goes idle after one, without `agent_end`). */
  ended?: "done" | "aborted" | "error";
  /** A tool ended (the adapter ends a `sub_agent` call's child session with it). */
  toolEnded?: { callId: string; tool: string; ok: boolean; error?: string };
  /** A live status line (`status_update`). */
  status?: string;
  /** A sub-agent's event, for its own child session. */
  sub?: { parentCallId: string; subSessionId: string; inner: Obj };
  /** A prompt sent while busy was queued / applied. */
  queued?: { text: string; applied: boolean };
  /** Opal generated a title (`unknown {raw: "{:title_generated, \"…\"}"}`). */
  title?: string;
}

/** The title in an `unknown` event's `{:title_generated, "…"}`, if it is one. */
export function generatedTitle(raw: string): string | undefined {
  const m = /^\{:title_generated,\s*"((?:[^"\\]|\\.)*)"/.exec(raw);
  if (!m) return undefined;
  try {
    return (JSON.parse(`"${m[1]}"`) as string).trim() || undefined;
  } catch {
    return m[1]!.trim() || undefined;
  }
}

/** A new run's assistant message (after the user message the adapter publishes). */
export function beginTurn(
  sessionId: string,
  messageId: string,
  now: number,
  opts: { parentId?: string; model?: ModelRef } = {},
): { turn: OpalTurn; events: TimelineEvent[] } {
  const info: MessageInfo = {
    id: messageId,
    sessionId,
    role: "assistant",
    createdAt: now,
    ...(opts.parentId ? { parentId: opts.parentId } : {}),
    ...(opts.model ? { model: opts.model } : {}),
  };
  return {
    turn: { sessionId, info, seq: 0, tools: new Map(), children: new Map() },
    events: [{ type: "message.updated", message: info }],
  };
}

const blockId = (t: OpalTurn, kind: string) => `${t.info.id}:${kind}${++t.seq}`;

function closeThinking(t: OpalTurn, now: number): TimelineEvent[] {
  const th = t.thinking;
  if (!th) return [];
  t.thinking = undefined;
  return [
    {
      type: "block.updated",
      messageId: t.info.id,
      block: { id: th.id, kind: "reasoning", text: th.text, startedAt: th.startedAt, endedAt: now },
    },
  ];
}

/**
 * Opal's usage object → canonical usage (prompt/completion tokens; context from
 * `current_context_tokens / context_window`).
 */
export function opalUsage(u: unknown): Usage | undefined {
  if (!isObj(u)) return undefined;
  const input = num(u.prompt_tokens);
  const output = num(u.completion_tokens);
  if (input === undefined && output === undefined) return undefined;
  const ctx = num(u.current_context_tokens);
  const win = num(u.context_window);
  return {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    ...(ctx !== undefined ? { contextTokens: ctx } : {}),
    ...(win ? { contextWindow: win } : {}),
  };
}

function toolKey(t: OpalTurn, callId: string, tool: string, starting: boolean): string {
  if (callId !== "") return callId;
  if (!starting)
    for (const [k, b] of [...t.tools].reverse())
      if (k.startsWith("legacy:") && b.rawTool === tool && b.status === "running") return k;
  return `legacy:${tool}:${t.tools.size}`;
}

/** Applies one `agent/event` (its params, `session_id` included) to the run. */
export function applyOpalEvent(t: OpalTurn, ev: unknown, now: number): Applied {
  if (!isObj(ev)) return { events: [] };
  const type = str(ev.type) ?? "";
  const mid = t.info.id;
  switch (type) {
    case "agent_start":
    case "context_discovered":
    case "skill_loaded":
      return { events: [] };
    case "thinking_start": {
      const events = closeThinking(t, now);
      t.text = undefined;
      t.thinking = { id: blockId(t, "r"), text: "", startedAt: now };
      events.push({
        type: "block.updated",
        messageId: mid,
        block: { id: t.thinking.id, kind: "reasoning", text: "", startedAt: now },
      });
      return { events };
    }
    case "thinking_delta": {
      const delta = str(ev.delta) ?? "";
      const events: TimelineEvent[] = [];
      if (!t.thinking) {
        t.thinking = { id: blockId(t, "r"), text: "", startedAt: now };
        events.push({
          type: "block.updated",
          messageId: mid,
          block: { id: t.thinking.id, kind: "reasoning", text: "", startedAt: now },
        });
      }
      t.thinking.text += delta;
      if (delta) events.push({ type: "block.delta", messageId: mid, blockId: t.thinking.id, field: "text", delta });
      return { events };
    }
    case "message_start": {
      const events = closeThinking(t, now);
      t.text = { id: blockId(t, "t"), text: "" };
      events.push({ type: "block.updated", messageId: mid, block: { id: t.text.id, kind: "text", text: "" } });
      return { events };
    }
    case "message_delta": {
      const delta = str(ev.delta) ?? "";
      const events = closeThinking(t, now);
      if (!t.text) {
        t.text = { id: blockId(t, "t"), text: "" };
        events.push({ type: "block.updated", messageId: mid, block: { id: t.text.id, kind: "text", text: "" } });
      }
      t.text.text += delta;
      if (delta) events.push({ type: "block.delta", messageId: mid, blockId: t.text.id, field: "text", delta });
      return { events };
    }
    case "turn_end": {
      const events = closeThinking(t, now);
      const final = str(ev.message);
      if (t.text && final !== undefined && final !== t.text.text) {
        t.text.text = final;
        events.push({ type: "block.updated", messageId: mid, block: { id: t.text.id, kind: "text", text: final } });
      } else if (!t.text && final) {
        events.push({
          type: "block.updated",
          messageId: mid,
          block: { id: blockId(t, "t"), kind: "text", text: final },
        });
      }
      t.text = undefined;
      return { events };
    }
    case "tool_execution_start":
    case "tool_start": {
      const events = closeThinking(t, now);
      t.text = undefined;
      const tool = str(ev.tool) ?? "tool";
      const key = toolKey(t, str(ev.call_id) ?? "", tool, true);
      const block: ToolBlock = {
        id: `${mid}:tool:${key}`,
        kind: "tool",
        callId: key,
        tool: opalTool(tool),
        rawTool: tool,
        status: "running",
        input: obj(ev.args),
        startedAt: now,
        ...(str(ev.meta) ? { title: str(ev.meta)! } : {}),
      };
      t.tools.set(key, block);
      events.push({ type: "block.updated", messageId: mid, block });
      return { events };
    }
    case "tool_output": {
      const tool = str(ev.tool) ?? "tool";
      const b = t.tools.get(toolKey(t, str(ev.call_id) ?? "", tool, false));
      const chunk = str(ev.chunk) ?? "";
      if (!b || !chunk) return { events: [] };
      b.output = (b.output ?? "") + chunk;
      return { events: [{ type: "block.delta", messageId: mid, blockId: b.id, field: "output", delta: chunk }] };
    }
    case "tool_execution_end":
    case "tool_end": {
      const tool = str(ev.tool) ?? "tool";
      const key = toolKey(t, str(ev.call_id) ?? "", tool, false);
      const prev = t.tools.get(key) ?? {
        id: `${mid}:tool:${key}`,
        kind: "tool" as const,
        callId: key,
        tool: opalTool(tool),
        rawTool: tool,
        status: "running" as const,
        input: {},
      };
      const r = obj(ev.result);
      const ok = r.ok === true;
      const meta = obj(r.meta);
      const path = str(prev.input.path) ?? str(prev.input.file_path);
      // `meta.diff` is Opal's structured diff (diff.ex); a unified text from other builds is read too.
      const structured = isObj(meta.diff) ? structuredDiff(meta.diff, path, tool === "write_file") : undefined;
      const diffText = str(meta.diff);
      const diff = structured ? [structured] : diffText ? diffFiles(diffText, path) : undefined;
      const error = ok
        ? undefined
        : typeof r.error === "string"
          ? unquoteElixir(r.error)
          : JSON.stringify(r.error ?? "failed");
      const block: ToolBlock = {
        ...prev,
        status: ok ? "completed" : "error",
        endedAt: now,
        ...(ok ? { output: toolOutputText(tool, r.output) } : { error: error! }),
        ...(diff?.length ? { diff } : {}),
      };
      t.tools.set(key, block);
      const events: TimelineEvent[] = [{ type: "block.updated", messageId: mid, block }];
      if (tool === "tasks" && ok && isObj(r.output) && completeTaskSnapshot(prev.input, r.output))
        events.push({ type: "todo.updated", todos: tasksTodos(r.output.tasks) });
      return { events, toolEnded: { callId: key, tool, ok, ...(error !== undefined ? { error } : {}) } };
    }
    case "usage_update": {
      const u = opalUsage(ev.usage);
      if (!u) return { events: [] };
      t.usage = u;
      return { events: [{ type: "usage.updated", usage: u }] };
    }
    case "agent_end": {
      const u = opalUsage(ev.usage);
      if (u) t.usage = u;
      return {
        events: [...(u ? [{ type: "usage.updated" as const, usage: u }] : []), ...endTurn(t, now)],
        ended: "done",
      };
    }
    case "agent_abort":
      return {
        events: endTurn(t, now, { error: { name: "Aborted", message: "Stopped", aborted: true } }),
        ended: "aborted",
      };
    case "agent_recovered":
      // agent.ex init/1 → maybe_recover_session/1 (matteing/opal@36f655c): the supervisor restarted the
      // crashed agent, which reloads the session's messages and starts `:idle`, with no `agent_end`.
      // The run it was in is gone: end it failed, so the session is idle and the queue moves on.
      return {
        events: [
          notice(
            t,
            "warn",
            "Opal's agent process crashed and was restarted by its supervisor; the conversation was reloaded.",
          ),
          ...endTurn(t, now, {
            error: {
              name: "OpalRecovered",
              message:
                "Opal's agent crashed during this run and restarted idle; the run was lost. Send the prompt again.",
            },
          }),
        ],
        ended: "error",
      };
    case "status_update": {
      const m = str(ev.message);
      return m ? { events: [], status: m } : { events: [] };
    }
    case "message_queued":
    case "message_applied":
      return { events: [], queued: { text: str(ev.text) ?? "", applied: type === "message_applied" } };
    case "sub_agent_event": {
      const inner = obj(ev.inner);
      const parentCallId = str(ev.parent_call_id) ?? "";
      const subSessionId = str(ev.sub_session_id) ?? "";
      if (!subSessionId || !str(inner.type)) return { events: [] };
      return { events: [], sub: { parentCallId, subSessionId, inner } };
    }
    case "sub_agent_start":
      return { events: [] };
    case "unknown": {
      const raw = str(ev.raw) ?? "";
      const title = generatedTitle(raw);
      if (title) return { events: [], title };
      // agent.ex's model-call boundaries (no serializer clause): nothing to show.
      if (/^\{:request_(start|end)\b/.test(raw)) return { events: [] };
      const stalled = /^\{:stream_stalled,\s*(\d+)\}/.exec(raw);
      if (stalled) return { events: [], status: `Waiting for the model (nothing for ${stalled[1]} s)` };
      return { events: [unknownNotice(t, raw)] };
    }
    case "error": {
      // agent.ex handle_provider_error / recover_stream_error: `error`, then idle, with no `agent_end`.
      const reason = str(ev.reason) ?? "(no reason)";
      return {
        events: endTurn(t, now, {
          error: { name: "OpalError", message: `Opal reported an error: ${unquoteElixir(reason)}` },
        }),
        ended: "error",
      };
    }
    default:
      return { events: [notice(t, "info", `Opal sent an event this console does not know: ${type || "(no type)"}`)] };
  }
}

function unknownNotice(t: OpalTurn, raw: string): TimelineEvent {
  if (/^\{:retry\b/.test(raw)) return notice(t, "warn", `Opal is retrying the model request: ${raw}`, "retry");
  if (/^\{:compaction_(start|end)\b/.test(raw))
    return notice(
      t,
      "info",
      raw.startsWith("{:compaction_start")
        ? `Opal is compacting the conversation: ${raw}`
        : `Opal compacted the conversation: ${raw}`,
      "compaction",
    );
  return notice(t, "info", `Opal: ${raw}`);
}

/** A notice block in the run's message. */
export function notice(
  t: OpalTurn,
  level: "info" | "warn" | "error",
  text: string,
  code?: "compaction" | "retry" | "abort" | "error",
): TimelineEvent {
  return {
    type: "block.updated",
    messageId: t.info.id,
    block: { id: blockId(t, "n"), kind: "notice", level, text, ...(code ? { code } : {}) },
  };
}

/** Ends the run: open blocks closed, running tools cancelled, the message completed (with `error` when it failed). */
export function endTurn(t: OpalTurn, now: number, opts: { error?: MessageError } = {}): TimelineEvent[] {
  const events = closeThinking(t, now);
  t.text = undefined;
  for (const [k, b] of t.tools) {
    if (b.status !== "running" && b.status !== "pending") continue;
    const done: ToolBlock = { ...b, status: "cancelled", endedAt: now };
    t.tools.set(k, done);
    events.push({ type: "block.updated", messageId: t.info.id, block: done });
  }
  t.info = {
    ...t.info,
    completedAt: now,
    ...(t.usage ? { usage: t.usage } : {}),
    ...(opts.error ? { error: opts.error } : {}),
  };
  events.push({ type: "message.updated", message: t.info });
  return events;
}
