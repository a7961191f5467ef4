/**
 * Opal's `session/history` → canonical messages and the plan, for sessions the console has no
 * record of (./normalize.ts maps the live events). Pure and defensive.
 */
import type { Block, Message, Todo, ToolBlock } from "@/lib/model";
import { arr, isObj, obj, str } from "../shared/values";
import { opalTool } from "./normalize";
import { tasksTodos, toolOutputText } from "./tool-results";

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
