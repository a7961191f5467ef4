import "server-only";
import type { InterruptAnswer } from "@/lib/api";
import { ApiError } from "../../errors";
import { questionAnswers } from "../shared/answers";
import type { ApiBackend } from "./api-backend";
import type { ApiEventMapper } from "./api-events";
import type { PendingRequests } from "./pending";
import type { V1Backend } from "./v1-backend";

export interface AnswerContext {
  requests: PendingRequests;
  v1: V1Backend;
  /** The `/api` backend, when that is the contract spoken (else V1 answers). */
  v2(): ApiBackend | undefined;
  apiEvents: ApiEventMapper;
  /** An "always" was answered on `/api`: the saved rules changed. */
  ruleSaved(): void;
}

/**
 * Answers a pending permission or question in the contract spoken (409 when it was answered
 * already, 404 when unknown or another session's; OpenCode has no free-text input requests).
 */
export async function answerInterrupt(
  ctx: AnswerContext,
  sessionId: string,
  interruptId: string,
  answer: InterruptAnswer,
): Promise<void> {
  let it = ctx.requests.get(interruptId);
  if (!it && !ctx.requests.wasResolved(interruptId)) {
    await ctx.requests.refresh();
    it = ctx.requests.get(interruptId);
  }
  if (!it) {
    if (ctx.requests.wasResolved(interruptId)) throw ApiError.conflict("This request was already answered");
    throw ApiError.notFound(`Unknown interrupt: ${interruptId}`);
  }
  if (!(await ctx.requests.audience(it.sessionId)).includes(sessionId))
    throw ApiError.notFound(`Interrupt ${interruptId} does not belong to session ${sessionId}`);
  const target = it;
  if (target.kind === "permission") {
    let reply: "once" | "always" | "reject";
    let message: string | undefined;
    if ("decision" in answer) {
      reply = answer.decision === "allow_once" ? "once" : answer.decision === "allow_always" ? "always" : "reject";
      if (answer.message && reply !== "reject") throw ApiError.badRequest("Feedback can only be sent with a rejection");
      message = answer.message || undefined;
    } else if ("dismiss" in answer) {
      reply = "reject";
    } else {
      throw ApiError.badRequest(
        "A permission request is answered with {decision: allow_once | allow_always | reject, message?}",
      );
    }
    const v2 = ctx.v2();
    if (v2) {
      if (reply === "reject" && message) ctx.apiEvents.rejectingWithFeedback(target.id);
      await v2.replyPermission(target.sessionId, target.id, reply, message);
      if (reply === "always") ctx.ruleSaved();
    } else await ctx.v1.replyPermission(target.sessionId, target.id, reply, message);
    await ctx.requests.resolve(target, reply);
    return;
  }
  // Upstream main's forms (./api-forms.ts), asked as a question or an input form: their own routes.
  const api = ctx.v2();
  if (api?.isForm(target.id)) {
    const outcome = await api.answerForm(target.sessionId, target.id, answer);
    await ctx.requests.resolve(target, outcome);
    return;
  }
  if (target.kind === "question") {
    if ("dismiss" in answer) {
      const v2 = ctx.v2();
      if (v2) await v2.rejectQuestion(target.sessionId, target.id);
      else await ctx.v1.rejectQuestion(target.sessionId, target.id);
      await ctx.requests.resolve(target, "rejected");
      return;
    }
    const answers = questionAnswers(target, answer);
    const v2 = ctx.v2();
    if (v2) await v2.replyQuestion(target.sessionId, target.id, answers);
    else await ctx.v1.replyQuestion(target.sessionId, target.id, answers);
    await ctx.requests.resolve(target, "answered");
    return;
  }
  throw ApiError.badRequest("OpenCode has no free-text input requests");
}

/**
 * Ends the requests still pending for a session that no longer runs (after Stop): declined at the
 * server, which keeps them listed on V1 (1.18.33), and resolved in the console whatever it answers.
 */
export async function declineStale(ctx: AnswerContext, sessionId: string): Promise<void> {
  for (const it of ctx.requests.list()) {
    if (it.sessionId !== sessionId) continue;
    const answer: InterruptAnswer = it.kind === "permission" ? { decision: "reject" } : { dismiss: true };
    await answerInterrupt(ctx, sessionId, it.id, answer).catch(() => ctx.requests.resolve(it, "cancelled"));
  }
}
