/**
 * What an Opal tool's result carries besides its diff: its output as text (the `tasks` tool's
 * structured output summed up), its error (Elixir-quoted), and the plan the `tasks` tool keeps. Pure.
 */
import type { Todo } from "@/lib/model";
import { arr, isObj, num, obj, str, type Obj } from "../shared/values";

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

export function toolOutputText(tool: string, output: unknown): string {
  if (typeof output === "string") return output;
  if (tool === "tasks" && isObj(output)) {
    const c = obj(output.counts);
    const changes = arr(output.changes).filter((x): x is string => typeof x === "string");
    return [
      `${str(output.action) ?? "tasks"}: ${num(output.total) ?? 0} task(s) — ${num(c.open) ?? 0} open, ` +
        `${num(c.in_progress) ?? 0} in progress, ${num(c.done) ?? 0} done, ${num(c.blocked) ?? 0} blocked`,
      ...changes,
    ].join("\n");
  }
  return output === undefined ? "" : JSON.stringify(output, null, 2);
}
