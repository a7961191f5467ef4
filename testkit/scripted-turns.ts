import type { ScriptedTurn } from "./scripted-model";

/** Builders for the scripted model's turns that many specs queue: tool calls, questions, long replies. */

/** A turn that calls the bash tool with `command`. */
export const bashCall = (command: string, description = "test command"): ScriptedTurn => ({
  toolCalls: [{ name: "bash", arguments: { command, description } }],
});

/** A turn that runs `echo <marker>`, so the marker shows in the tool's output. */
export const echoCall = (marker: string): ScriptedTurn => bashCall(`echo ${marker}`, `Print ${marker}`);

export interface ScriptedQuestion {
  question: string;
  header?: string;
  options: { label: string; description?: string }[];
  multiple?: boolean;
}

/** A turn that asks `questions` with the question tool (OpenCode requires a header and option descriptions). */
export const questionCall = (questions: ScriptedQuestion[]): ScriptedTurn => ({
  toolCalls: [
    {
      name: "question",
      arguments: {
        questions: questions.map((q) => ({
          ...q,
          header: q.header ?? "Question",
          options: q.options.map((o) => ({ ...o, description: o.description ?? `Choose ${o.label}` })),
        })),
      },
    },
  ],
});

/** One question whose options are given as `{ label: description }`. */
export const choice = (
  question: string,
  header: string,
  options: Record<string, string>,
  multiple?: boolean,
): ScriptedQuestion => ({
  question,
  header,
  options: Object.entries(options).map(([label, description]) => ({ label, description })),
  ...(multiple ? { multiple } : {}),
});

/** A reply of `count` words `beat0 beat1 …` sent in `count` chunks `delayMs` apart: a turn that takes a while. */
export const beats = (count: number, delayMs: number, join: "space" | "trailing" = "trailing"): ScriptedTurn => ({
  text:
    join === "space"
      ? Array.from({ length: count }, (_, i) => `beat${i}`).join(" ")
      : Array.from({ length: count }, (_, i) => `beat${i} `).join(""),
  chunks: count,
  delayMs,
});

/** The content of every tool result the model has received so far. */
export function toolResults(model: { requests: { messages: { role: string; content?: unknown }[] }[] }): string {
  return model.requests
    .flatMap((r) => r.messages)
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

/** A turn that hands `prompt` to a general subagent with the task tool. */
export const taskCall = (description: string, prompt: string): ScriptedTurn => ({
  toolCalls: [{ name: "task", arguments: { description, prompt, subagent_type: "general" } }],
});

/** The user messages of the newest request the model received, as text. */
export function lastUserTexts(model: { requests: { messages: { role: string; content?: unknown }[] }[] }): string[] {
  return (model.requests.at(-1)?.messages ?? []).filter((m) => m.role === "user").map((m) => String(m.content));
}

/** A turn that writes `content` to `filePath` with OpenCode's write tool. */
export const writeCall = (filePath: string, content: string): ScriptedTurn => ({
  toolCalls: [{ name: "write", arguments: { filePath, content } }],
});
