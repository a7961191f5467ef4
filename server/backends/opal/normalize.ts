/**
 * Opal's `agent/event` notifications and `session/history` messages → canonical timeline events
 * (docs/backends/opal.md; the events as matteing/opal's `opal/lib/opal/rpc/server.ex` serializes
 * them, at the commit docs/backends/opal.md names). Pure and
 * defensive: no I/O, the clock and ids are passed in, and a malformed or unknown event yields a
 * notice or nothing, never a throw.
 *
 * One `OpalTurn` per run holds what the mapping needs across events: the assistant message that
 * collects the whole run (every model call's thinking and text, every tool), the open thinking
 * block (Opal sends no end: it ends at the next `message_start`, tool start or `turn_end`), the
 * open text block, the tools by `call_id` (or by name for legacy tools with an empty `call_id`),
 * and the usage. Sub-agent events (`sub_agent_event {parent_call_id, sub_session_id, inner}`) are
 * returned apart, for the child session's own turn.
 */
import type {
  FileDiff,
  MessageError,
  MessageInfo,
  ModelRef,
  Todo,
  TimelineEvent,
  ToolBlock,
  ToolName,
  Usage,
  Message,
  Block,
} from "@/lib/model";
import { canonicalTool, TOOL_NAMES } from "../shared/tool-names";
import { arr, isObj, num, obj, str, type Obj } from "../shared/values";

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

export interface OpalTurn {
  sessionId: string;
  info: MessageInfo;
  seq: number;
  text?: { id: string; text: string };
  thinking?: { id: string; text: string; startedAt: number };
  tools: Map<string, ToolBlock>;
  usage?: Usage;
  /** Child sessions started by this turn's `sub_agent` calls: `sub_session_id` → parent call. */
  children: Map<string, string>;
}

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

/** Opal's usage object → canonical usage (prompt/completion tokens; context from `current_context_tokens / context_window`). */
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

/** A unified diff (`result.meta.diff`) → the edit's file diffs. */
export function diffFiles(diff: string, fallbackPath?: string): FileDiff[] {
  const files: FileDiff[] = [];
  let cur: FileDiff | undefined;
  for (const line of diff.split("\n")) {
    if (line.startsWith("--- ")) {
      cur = undefined;
      continue;
    }
    if (line.startsWith("+++ ")) {
      const p = line.slice(4).replace(/^b\//, "").trim();
      cur = {
        path: p === "/dev/null" ? (fallbackPath ?? "") : p,
        status: "modified",
        additions: 0,
        deletions: 0,
        patch: "",
      };
      files.push(cur);
      continue;
    }
    if (!cur) {
      if (!line.startsWith("@@")) continue;
      cur = { path: fallbackPath ?? "", status: "modified", additions: 0, deletions: 0, patch: "" };
      files.push(cur);
    }
    if (line.startsWith("+")) cur.additions++;
    else if (line.startsWith("-")) cur.deletions++;
  }
  // Each file's patch is the whole text for a single file; several files share it (rare for one edit).
  for (const f of files) f.patch = diff;
  return files.filter((f) => f.path !== "" || fallbackPath === undefined);
}

/**
 * Opal's structured diff (`opal/lib/opal/diff.ex`: `{path, lines_added, lines_removed, hunks:
 * [{old_start, new_start, lines: [{op: eq|del|ins, text, old_no?, new_no?}]}]}`, an edit's or a
 * write's `result.meta.diff`) → the file's diff with a unified patch. `written`: a write whose
 * diff has no old line at all made the file.
 */
export function structuredDiff(d: Obj, fallbackPath: string | undefined, written = false): FileDiff | undefined {
  const file = str(d.path) ?? fallbackPath;
  const hunks = arr(d.hunks).filter(isObj);
  if (!file) return undefined;
  const body: string[] = [];
  let additions = 0;
  let deletions = 0;
  let old = 0;
  for (const h of hunks) {
    const lines = arr(h.lines).filter(isObj);
    const oldCount = lines.filter((l) => l.op !== "ins").length;
    const newCount = lines.filter((l) => l.op !== "del").length;
    old += oldCount;
    body.push(`@@ -${num(h.old_start) ?? 1},${oldCount} +${num(h.new_start) ?? 1},${newCount} @@`);
    for (const l of lines) {
      const text = str(l.text) ?? "";
      if (l.op === "del") {
        deletions++;
        body.push(`-${text}`);
      } else if (l.op === "ins") {
        additions++;
        body.push(`+${text}`);
      } else body.push(` ${text}`);
    }
  }
  const added = written && old === 0;
  const patch = hunks.length
    ? `${[`--- ${added ? "/dev/null" : `a/${file}`}`, `+++ b/${file}`, ...body].join("\n")}\n`
    : "";
  return {
    path: file,
    status: added ? "added" : "modified",
    additions: num(d.lines_added) ?? additions,
    deletions: num(d.lines_removed) ?? deletions,
    patch,
  };
}

/**
 * A tool's error as Opal sends it: server.ex's `format_tool_result` passes the reason through
 * `inspect/1`, so a text arrives Elixir-quoted (`"Command exited…\\n…"`). Unquoted here; other
 * terms (`{:error, :enoent}`) stay as they are.
 */
export function unquoteElixir(s: string): string {
  if (s.length < 2 || !s.startsWith('"') || !s.endsWith('"')) return s;
  const inner = s.slice(1, -1);
  let out = "";
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c === '"') return s; // not one string literal
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = inner[++i];
    if (n === undefined) return s;
    const simple: Record<string, string> = {
      n: "\n",
      t: "\t",
      r: "\r",
      e: "\u001b",
      "0": "\0",
      a: "\u0007",
      b: "\b",
      f: "\f",
      v: "\v",
      s: " ",
    };
    if (simple[n] !== undefined) out += simple[n];
    else if (n === "u" || n === "x") {
      const m =
        n === "u"
          ? /^\{([0-9a-fA-F]{1,6})\}|^([0-9a-fA-F]{4})/.exec(inner.slice(i + 1))
          : /^\{([0-9a-fA-F]{1,6})\}|^([0-9a-fA-F]{2})/.exec(inner.slice(i + 1));
      if (!m) return s;
      out += String.fromCodePoint(parseInt(m[1] ?? m[2]!, 16));
      i += m[0].length;
    } else out += n; // \\ \" \# and the rest: the character itself
  }
  return out;
}

/** The `tasks` tool's structured output (or `tasks/list`) → the plan. */
export function tasksTodos(tasks: unknown): Todo[] {
  return arr(tasks)
    .filter(isObj)
    .map((t) => ({
      content: str(t.label) || str(t.id) || (typeof t.id === "number" ? String(t.id) : ""),
      status: opalTaskStatus(str(t.status) ?? "open"),
    }))
    .filter((t) => t.content !== "");
}

/**
 * Whether a `tasks` call's output holds every task (`opal/lib/opal/tool/tasks.ex`: insert,
 * update, delete and batch answer with the whole table; `list` with a `view` or a field filter
 * answers with a subset, which must not replace the plan).
 */
export function completeTaskSnapshot(args: Obj, output: Obj): boolean {
  if (str(output.action) !== "list") return true;
  return (
    args.view === undefined &&
    ["label", "status", "notes", "blocked_by", "parent_id", "prompt", "result"].every((k) => args[k] === undefined)
  );
}

function opalTaskStatus(s: string): string {
  if (s === "open") return "pending";
  if (s === "done") return "completed";
  return s; // in_progress, blocked
}

function toolOutputText(tool: string, output: unknown): string {
  if (typeof output === "string") return output;
  if (tool === "tasks" && isObj(output)) {
    const c = obj(output.counts);
    const changes = arr(output.changes).filter((x): x is string => typeof x === "string");
    return [
      `${str(output.action) ?? "tasks"}: ${num(output.total) ?? 0} task(s) — ${num(c.open) ?? 0} open, ${num(c.in_progress) ?? 0} in progress, ${num(c.done) ?? 0} done, ${num(c.blocked) ?? 0} blocked`,
      ...changes,
    ].join("\n");
  }
  return output === undefined ? "" : JSON.stringify(output, null, 2);
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
      return {
        events: [
          notice(
            t,
            "warn",
            "Opal's agent process crashed and was restarted by its supervisor; the conversation was reloaded.",
          ),
        ],
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

/**
 * `session/history` (the current path, root first) → canonical messages: each user message, then
 * one assistant message per run collecting its model calls (thinking, text, tool calls) with the
 * `tool_result` messages folded into their tool blocks. Compaction summaries (`[Conversation
 * summary`) are summary messages; system messages are left out. Ids are Opal's; Opal keeps no
 * times, so messages get increasing times from `now`, in path order.
 */
export function historyMessages(sessionId: string, raw: unknown, now: number): Message[] {
  const out: Message[] = [];
  let cur: Message | undefined;
  const tools = new Map<string, ToolBlock>();
  let lastUser: string | undefined;
  let at = now;
  for (const m of arr(raw).filter(isObj)) {
    const id = str(m.id) ?? `h${out.length}`;
    now = at++;
    const role = str(m.role);
    const content = str(m.content) ?? "";
    if (role === "user" || (role === "system" && content.startsWith("[Conversation summary"))) {
      cur = undefined;
      const summary = content.startsWith("[Conversation summary");
      if (summary) {
        out.push({
          id,
          sessionId,
          role: "assistant",
          createdAt: now,
          completedAt: now,
          summary: true,
          blocks: [{ id: `${id}:t`, kind: "text", text: content }],
        });
        continue;
      }
      lastUser = id;
      out.push({
        id,
        sessionId,
        role: "user",
        createdAt: now,
        blocks: [{ id: `${id}:t`, kind: "text", text: content }],
      });
      continue;
    }
    if (role === "assistant") {
      if (!cur) {
        cur = {
          id,
          sessionId,
          role: "assistant",
          createdAt: now,
          completedAt: now,
          ...(lastUser ? { parentId: lastUser } : {}),
          blocks: [],
        };
        out.push(cur);
      }
      const blocks: Block[] = cur.blocks;
      const thinking = str(m.thinking);
      if (thinking) blocks.push({ id: `${id}:r`, kind: "reasoning", text: thinking });
      if (content) blocks.push({ id: `${id}:t`, kind: "text", text: content });
      for (const tc of arr(m.tool_calls).filter(isObj)) {
        const callId = str(tc.call_id) ?? "";
        const name = str(tc.name) ?? "tool";
        const b: ToolBlock = {
          id: `${id}:tool:${callId}`,
          kind: "tool",
          callId,
          tool: opalTool(name),
          rawTool: name,
          status: "completed",
          input: obj(tc.arguments),
        };
        tools.set(callId, b);
        blocks.push(b);
      }
      continue;
    }
    if (role === "tool_result" && cur) {
      const b = tools.get(str(m.call_id) ?? "");
      if (!b) continue;
      if (m.is_error === true) {
        b.status = "error";
        b.error = content;
      } else b.output = content;
      if (b.rawTool === "tasks") {
        try {
          b.output = toolOutputText("tasks", JSON.parse(content));
        } catch {
          // plain text: kept as is
        }
      }
    }
  }
  return out;
}

/** The todos of the last `tasks` tool result in a history (for sessions the console has no record of). */
export function historyTodos(raw: unknown): Todo[] | undefined {
  let todos: Todo[] | undefined;
  for (const m of arr(raw).filter(isObj)) {
    if (m.role !== "tool_result" || m.name !== "tasks" || m.is_error === true) continue;
    try {
      const out = JSON.parse(str(m.content) ?? "") as unknown;
      if (isObj(out)) todos = tasksTodos(out.tasks);
    } catch {
      // not the structured output
    }
  }
  return todos;
}
