/**
 * Bounds on what an agent may ask the user (docs/security.md, "Interrupts"): a form schema from an
 * MCP server, a question, a permission request. Anything over them is refused before it is kept or
 * sent to a browser: the agent gets a clear error, the session a notice. Pure and isomorphic.
 */
import type { Interrupt, TimelineEvent } from "./model";

export const INTERRUPT_LIMITS = {
  /** The whole request as JSON, without a permission's file diff (which is the agent's own output, like a tool's). */
  maxBytes: 256 * 1024,
  /** Fields of a form. */
  maxFields: 50,
  /** Options of a question, choices of a form field, buttons of a permission request. */
  maxOptions: 100,
  /** Questions in one request. */
  maxQuestions: 20,
  /** Characters of one title, prompt, question, label or description. */
  maxText: 10_000,
} as const;

export type InterruptLimits = { [K in keyof typeof INTERRUPT_LIMITS]: number };

const kB = (n: number) => `${Math.ceil(n / 1024).toLocaleString("en-US")} kB`;

/** Why the console refuses this request, or undefined when it is within the bounds. */
export function interruptLimitError(it: Interrupt, limits: InterruptLimits = INTERRUPT_LIMITS): string | undefined {
  const { diff: _diff, ...permission } = it.permission ?? { diff: undefined };
  const size = JSON.stringify({ ...it, ...(it.permission ? { permission } : {}) }).length;
  if (size > limits.maxBytes) return `the request is ${kB(size)}; the console takes at most ${kB(limits.maxBytes)}`;
  const texts: [string, string | undefined][] = [["title", it.title]];
  const questions = it.questions ?? [];
  if (questions.length > limits.maxQuestions)
    return `it asks ${questions.length} questions; the console takes at most ${limits.maxQuestions}`;
  for (const q of questions) {
    if (q.options.length > limits.maxOptions)
      return `a question has ${q.options.length} options; the console takes at most ${limits.maxOptions}`;
    texts.push(["question", q.question], ["header", q.header]);
    for (const o of q.options) texts.push(["option", o.label], ["option description", o.description]);
  }
  if (it.permission) {
    if (it.permission.options.length > limits.maxOptions)
      return `it offers ${it.permission.options.length} choices; the console takes at most ${limits.maxOptions}`;
    for (const o of it.permission.options) texts.push(["choice", o.label]);
  }
  if (it.input) {
    texts.push(["prompt", it.input.prompt]);
    const fields = Object.entries(it.input.schema?.properties ?? {});
    if (fields.length > limits.maxFields)
      return `the form has ${fields.length} fields; the console takes at most ${limits.maxFields}`;
    for (const [name, f] of fields) {
      const choices = Math.max(f.enum?.length ?? 0, f.enumNames?.length ?? 0);
      if (choices > limits.maxOptions)
        return `the form's field "${name.slice(0, 60)}" has ${choices} choices; the console takes at most ${limits.maxOptions}`;
      texts.push(["field name", name], ["field title", f.title], ["field description", f.description]);
      for (const e of [...(f.enum ?? []), ...(f.enumNames ?? [])]) texts.push(["choice", e]);
    }
  }
  for (const [what, text] of texts) {
    if (text !== undefined && text.length > limits.maxText)
      return `a ${what} is ${text.length.toLocaleString("en-US")} characters; the console takes at most ${limits.maxText.toLocaleString("en-US")}`;
  }
  return undefined;
}

/** The message the agent gets, and the session's notice says, for a refused request. */
export function refusedInterruptMessage(it: Interrupt, reason: string): string {
  const what =
    it.kind === "input"
      ? it.input?.schema
        ? "form"
        : "request for input"
      : it.kind === "question"
        ? "question"
        : "permission request";
  return `The console refused this ${what}: ${reason}. Nothing was shown to the user; ask again with less.`;
}

/**
 * The notice a refused request leaves in the session's timeline: on the message it belongs to, or
 * on a message of its own when it names none.
 */
export function refusedInterruptNotice(it: Interrupt, reason: string): TimelineEvent[] {
  const text = refusedInterruptMessage(it, reason);
  const block = { id: `${it.id}:refused`, kind: "notice" as const, level: "warn" as const, text };
  if (it.messageId) return [{ type: "block.updated", messageId: it.messageId, block }];
  const messageId = `${it.id}:refused`;
  return [
    {
      type: "message.updated",
      message: {
        id: messageId,
        sessionId: it.sessionId,
        role: "assistant",
        createdAt: it.createdAt,
        completedAt: it.createdAt,
      },
    },
    { type: "block.updated", messageId, block },
  ];
}
