/** OpenCode V1 permission and question requests → canonical interrupts. Pure and defensive. */
import type { Interrupt } from "@/lib/model";
import { arr, obj, str } from "../shared/values";

/** A permission's diff larger than this is left out (the card still shows the file). */
const MAX_PERMISSION_DIFF = 256 * 1024;

export function toPermissionInterrupt(raw: unknown, now = Date.now()): Interrupt | null {
  const p = obj(raw);
  const id = str(p.id);
  const sessionId = str(p.sessionID);
  if (!id || !sessionId) return null;
  const action = str(p.permission) ?? "permission";
  const patterns = arr(p.patterns).filter((x): x is string => typeof x === "string");
  const always = arr(p.always).filter((x): x is string => typeof x === "string");
  const tool = obj(p.tool);
  const meta = obj(p.metadata);
  const subject = str(meta.command) ?? patterns.join(", ");
  // Edits carry the file and the diff they would apply: the card shows it before anyone decides.
  const path = str(meta.filepath);
  const diff = str(meta.diff);
  const it: Interrupt = {
    id,
    sessionId,
    kind: "permission",
    createdAt: now,
    title: subject ? `${action}: ${subject}` : action,
    permission: {
      action,
      patterns,
      ...(always.length ? { always } : {}),
      ...(path ? { path } : {}),
      ...(diff && diff.length <= MAX_PERMISSION_DIFF ? { diff } : {}),
      options: [
        { id: "once", label: "Allow once", kind: "allow_once" },
        { id: "always", label: "Always allow", kind: "allow_always" },
        { id: "reject", label: "Reject", kind: "reject" },
      ],
    },
  };
  if (str(tool.callID)) it.toolCallId = str(tool.callID)!;
  if (str(tool.messageID)) it.messageId = str(tool.messageID)!;
  return it;
}

export function toQuestionInterrupt(raw: unknown, now = Date.now()): Interrupt | null {
  const q = obj(raw);
  const id = str(q.id);
  const sessionId = str(q.sessionID);
  if (!id || !sessionId) return null;
  const questions = arr(q.questions).map((x) => {
    const o = obj(x);
    return {
      question: str(o.question) ?? "",
      ...(str(o.header) ? { header: str(o.header)! } : {}),
      options: arr(o.options).map((op) => {
        const oo = obj(op);
        return { label: str(oo.label) ?? "", ...(str(oo.description) ? { description: str(oo.description)! } : {}) };
      }),
      ...(o.multiple === true ? { multiple: true } : {}),
      // OpenCode accepts a typed answer unless the question says otherwise.
      custom: o.custom !== false,
    };
  });
  const tool = obj(q.tool);
  const first = questions[0];
  const it: Interrupt = {
    id,
    sessionId,
    kind: "question",
    createdAt: now,
    title: first ? (first.header ? `${first.header}: ${first.question}` : first.question) : "Question",
    questions,
  };
  if (str(tool.callID)) it.toolCallId = str(tool.callID)!;
  if (str(tool.messageID)) it.messageId = str(tool.messageID)!;
  return it;
}
