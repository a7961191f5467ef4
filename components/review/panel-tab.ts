import type { Todo } from "@/lib/model";

/** The review panel's tabs; kept apart from the panel so the header can use them without loading it. */
export type PanelTab = "changes" | "plan" | "git" | "terminal";

export function todoProgress(todos: Todo[]): { done: number; total: number; active?: Todo } {
  const active = todos.find((t) => t.status === "in_progress");
  return {
    done: todos.filter((t) => t.status === "completed").length,
    total: todos.length,
    ...(active ? { active } : {}),
  };
}
