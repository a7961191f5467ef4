/**
 * Opal's server→client requests (`client/ask_user`, `client/confirm`, `client/input`, as
 * matteing/opal's `opal/lib/opal/rpc/server.ex` sends them) as console interrupts, and the console's answers as their
 * JSON-RPC results. Pure: the adapter (./adapter.ts) keeps them in the interrupt book.
 */
import type { InterruptAnswer } from "@/lib/api";
import type { Interrupt } from "@/lib/model";
import { ApiError } from "../../errors";
import { questionAnswers } from "../shared/answers";
import { arr, obj, str } from "../shared/values";

export const OPAL_REQUESTS = ["client/ask_user", "client/confirm", "client/input"] as const;
export type OpalRequest = (typeof OPAL_REQUESTS)[number];

/** What goes back to Opal: a result, or an error (Opal turns it into a tool error). */
export type OpalReply = { result: Record<string, unknown> } | { error: string };

type Kind = "allow_once" | "allow_always" | "reject";

/** A `client/confirm` action's meaning, from its name (`allow`, `allow_session`, `deny` …). */
export function actionKind(action: string): Kind {
  const a = action.toLowerCase();
  if (/deny|reject|cancel|block|refuse|^no$/.test(a)) return "reject";
  if (/always|session|forever|permanent/.test(a)) return "allow_always";
  return "allow_once";
}

const label = (action: string) => {
  const words = action.replace(/[_-]+/g, " ").trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : action;
};

/** The interrupt for one request (without ids and times, which the adapter adds). */
export function requestInterrupt(
  method: OpalRequest,
  params: unknown,
): Pick<Interrupt, "kind" | "title" | "questions" | "permission" | "input"> {
  const p = obj(params);
  if (method === "client/ask_user") {
    const choices = arr(p.choices).filter((c): c is string => typeof c === "string" && c !== "");
    return {
      kind: "question",
      title: "Opal asks",
      questions: [{ question: str(p.question) ?? "", options: choices.map((c) => ({ label: c })), custom: true }],
    };
  }
  if (method === "client/confirm") {
    const actions = arr(p.actions).filter((a): a is string => typeof a === "string" && a !== "");
    const list = actions.length ? actions : ["allow", "deny"];
    // One button per action; when two map to the same decision, the first wins (the others stay visible in the message).
    const seen = new Set<Kind>();
    const options = list.flatMap((a) => {
      const kind = actionKind(a);
      if (seen.has(kind)) return [];
      seen.add(kind);
      return [{ id: a, label: label(a), kind }];
    });
    const message = str(p.message) ?? "";
    return {
      kind: "permission",
      title: str(p.title) ?? "Opal asks for confirmation",
      permission: { action: str(p.title) ?? "confirm", patterns: message ? [message] : [], options },
    };
  }
  return {
    kind: "input",
    title: "Opal needs input",
    input: { prompt: str(p.prompt) ?? "", ...(p.sensitive === true ? { sensitive: true } : {}) },
  };
}

/** The result for an answer (400 when it does not fit the interrupt), with the outcome to publish. */
export function replyFor(it: Interrupt, answer: InterruptAnswer): { reply: OpalReply; outcome: string } {
  if (it.kind === "question") {
    if ("dismiss" in answer) return { reply: { error: "The user dismissed the question" }, outcome: "cancelled" };
    const picked = questionAnswers(it, answer)[0]!;
    return { reply: { result: { answer: picked.join(", ") } }, outcome: "answered" };
  }
  if (it.kind === "permission") {
    const options = it.permission?.options ?? [];
    if ("dismiss" in answer) {
      const deny = options.find((o) => o.kind === "reject");
      return {
        reply: deny ? { result: { action: deny.id } } : { error: "The user dismissed the request" },
        outcome: "reject",
      };
    }
    if (!("decision" in answer))
      throw ApiError.badRequest("A confirmation is answered with {decision} or {dismiss: true}");
    const opt = options.find((o) => o.kind === answer.decision);
    if (!opt) throw ApiError.badRequest(`This confirmation offers no "${answer.decision}" action`);
    return { reply: { result: { action: opt.id } }, outcome: answer.decision };
  }
  if ("dismiss" in answer || ("action" in answer && answer.action !== "accept"))
    return { reply: { error: "The user declined to give the input" }, outcome: "cancelled" };
  if (!("text" in answer)) throw ApiError.badRequest("Input is answered with {text} or {dismiss: true}");
  return { reply: { result: { text: answer.text } }, outcome: "answered" };
}
