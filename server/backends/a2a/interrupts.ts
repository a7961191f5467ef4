/**
 * Interrupts of A2A turns (./normalize.ts): what an opencode-a2a `shared.interrupt` asks, and the
 * canonical interrupt of an ask (a permission, a question, or a paused task's input request).
 */
import type { Interrupt, Question } from "@/lib/model";
import { arr, obj, str, type Obj } from "../shared/values";
import { lastAssistant, type InterruptAsk, type SessionNorm } from "./turn-state";

export function interruptAsk(requestId: string, type: string | undefined, details: Obj): InterruptAsk | undefined {
  if (type === "permission") {
    return {
      kind: "permission",
      requestId,
      permission: str(details.permission) ?? "permission",
      patterns: arr(details.patterns).filter((p): p is string => typeof p === "string"),
      details,
    };
  }
  if (type === "question") {
    const questions: Question[] = arr(details.questions).map((q) => {
      const o = obj(q);
      const header = str(o.header);
      return {
        question: str(o.question) ?? header ?? "Question",
        ...(header ? { header } : {}),
        options: arr(o.options).flatMap((x) => {
          const op = obj(x);
          const label = str(op.label) ?? str(op.value);
          const description = str(op.description);
          return label ? [{ label, ...(description ? { description } : {}) }] : [];
        }),
      };
    });
    return questions.length ? { kind: "question", requestId, questions } : undefined;
  }
  return undefined;
}

const PERMISSION_OPTIONS = [
  { id: "once", label: "Allow once", kind: "allow_once" as const },
  { id: "always", label: "Always allow", kind: "allow_always" as const },
  { id: "reject", label: "Reject", kind: "reject" as const },
];

/** The canonical interrupt of an ask. */
export function toInterrupt(n: SessionNorm, ask: InterruptAsk, id: string, now: number): Interrupt {
  const turn = n.turn;
  const messageId = turn ? lastAssistant(n, turn)?.id : undefined;
  const base = { id, sessionId: n.sessionId, createdAt: now, ...(messageId ? { messageId } : {}) };
  if (ask.kind === "permission") {
    const command = str(ask.details.command) ?? ask.patterns[0];
    const running = turn
      ? [...turn.tools.values()].filter((t) => t.status === "running" || t.status === "pending")
      : [];
    const tool = running.find((t) => t.rawTool === ask.permission) ?? (running.length === 1 ? running[0] : undefined);
    return {
      ...base,
      kind: "permission",
      ...(tool ? { toolCallId: tool.callId } : {}),
      title: command ? `${ask.permission}: ${command}` : `Allow ${ask.permission}?`,
      permission: { action: ask.permission, patterns: ask.patterns, options: PERMISSION_OPTIONS },
    };
  }
  if (ask.kind === "question")
    return { ...base, kind: "question", title: ask.questions[0]?.question ?? "Question", questions: ask.questions };
  return {
    ...base,
    kind: "input",
    title: ask.auth ? "Authentication needed" : "The agent asks",
    input: { prompt: ask.prompt, ...(ask.auth ? { sensitive: true } : {}) },
  };
}
