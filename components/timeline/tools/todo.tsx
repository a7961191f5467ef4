"use client";
import type { ToolBlock, Todo } from "@/lib/model";
import { IconCircle, IconCircleCheck, IconCircleDot, IconCircleX } from "@/components/ui/icons";
import { cx } from "@/components/ui/cx";
import { isRecord, maybeJson } from "./shared";

function asTodos(v: unknown): Todo[] | null {
  if (!Array.isArray(v)) return null;
  const out: Todo[] = [];
  for (const t of v) {
    if (!isRecord(t) || typeof t.content !== "string") continue;
    out.push({
      content: t.content,
      status: typeof t.status === "string" ? t.status : "pending",
      ...(typeof t.priority === "string" ? { priority: t.priority } : {}),
    });
  }
  return out;
}

/** The todo list a todo tool wrote (its input), or read (its JSON output). */
export function toolTodos(block: ToolBlock): Todo[] {
  return asTodos(block.input.todos) ?? asTodos(maybeJson(block.output)) ?? [];
}

export function todoCounts(todos: Todo[]): { done: number; total: number } {
  return { done: todos.filter((t) => t.status === "completed").length, total: todos.length };
}

function Glyph({ status }: { status: string }) {
  switch (status) {
    case "completed":
      return <IconCircleCheck size={14} className="text-ok" title="Completed" />;
    case "in_progress":
      return <IconCircleDot size={14} className="text-accent" title="In progress" />;
    case "cancelled":
      return <IconCircleX size={14} className="text-faint" title="Cancelled" />;
    default:
      return <IconCircle size={14} className="text-faint" title="Pending" />;
  }
}

export function TodoList({ todos }: { todos: Todo[] }) {
  return (
    <ul className="flex flex-col gap-0.5">
      {todos.map((t, i) => (
        <li
          key={i}
          className="flex items-start gap-2 text-[13px] leading-[20px]"
          data-testid="todo-item"
          data-status={t.status}
        >
          <span className="mt-[3px] shrink-0">
            <Glyph status={t.status} />
          </span>
          <span
            className={cx(
              "min-w-0 flex-1",
              t.status === "completed" && "text-muted line-through decoration-faint/60",
              t.status === "cancelled" && "text-faint line-through",
              t.status === "in_progress" && "text-fg",
              t.status === "pending" && "text-fg/85",
            )}
          >
            {t.content}
          </span>
          {t.priority === "high" && (t.status === "pending" || t.status === "in_progress") ? (
            <span className="mt-px shrink-0 text-[11px] text-warn">high</span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

export function TodoBody({ block }: { block: ToolBlock }) {
  const todos = toolTodos(block);
  if (todos.length === 0) return null;
  return (
    <div className="px-0.5 py-0.5">
      <TodoList todos={todos} />
    </div>
  );
}
