import "server-only";
import type { InterruptAnswer } from "@/lib/api";
import type { Interrupt } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import { questionAnswers } from "../shared/answers";
import type { InterruptBook } from "../shared/interrupts";
import { JsonRpcError, type JsonRpcPeer } from "../shared/json-rpc";
import { obj, str } from "../shared/values";
import type { CopilotConnection } from "./connection";
import { permissionInterrupt, planInterrupt, questionInterrupt } from "./interrupt-events";
import { mapRpcError, PendingPermissions, parseResult, SuccessResult } from "./rpc";
import type { Reply } from "./reply";
import type { Runtime } from "./runtime";
import type { CopilotSessions } from "./sessions";

/** The plan review's choices (./interrupt-events.ts `planInterrupt`). */
const PLAN_ACCEPT = "Accept";

/** A `userInput.request` waiting for the user's answer. */
interface QuestionWait {
  resolve(reply: Reply): void;
}

/**
 * The CLI's requests as interrupts, through the shared interrupt book: permissions and forms are
 * answered with `handlePending…` calls, questions (the ask_user tool) through the result of the
 * CLI's `userInput.request`.
 */
export class CopilotInterrupts {
  private questionWaits = new Map<string, QuestionWait>();
  private earlyReplies = new Map<string, Reply>();
  /** Questions refused from their event, by text: their `userInput.request` gets the reason as its error. */
  private refusedQuestions = new Map<string, string>();

  constructor(
    private backendId: string,
    private label: string,
    private cli: CopilotConnection,
    private book: InterruptBook<Reply>,
    private sessions: CopilotSessions,
  ) {}

  pending(): Interrupt[] {
    return this.book.list();
  }

  /** An interrupt from a session's events (`interrupt.requested`). */
  requested(rt: Runtime, it: Interrupt, gen: number) {
    // `userInput.request` can come before its `user_input.requested` event; `userInput` has
    // then raised the question already, and it must not be shown twice.
    if (!this.questionAlreadyWaiting(rt, it)) this.raise(rt, it, gen);
  }

  /** An interrupt's answer from a session's events (`interrupt.resolved`). */
  resolved(interruptId: string, outcome: string) {
    // Answered here: already resolved by `answer`; answered elsewhere: resolve it now.
    if (this.book.get(interruptId)) this.book.settle(interruptId, outcome, { kind: "sent" });
  }

  private questionAlreadyWaiting(rt: Runtime, it: Interrupt): boolean {
    if (it.kind !== "question") return false;
    const text = it.questions?.[0]?.question;
    return this.book
      .list(rt.id)
      .some((i) => i.kind === "question" && this.questionWaits.has(i.id) && i.questions?.[0]?.question === text);
  }

  /** Raises an interrupt; the message the CLI was given when it is over the console's bounds. */
  private raise(rt: Runtime, it: Interrupt, gen: number): string | undefined {
    return this.book.raise({
      sessionId: rt.id,
      interrupt: it,
      key: it.id,
      epoch: gen,
      respond: (reply) => {
        if (it.kind !== "question") return;
        const w = this.questionWaits.get(it.id);
        if (w) w.resolve(reply);
        else this.earlyReplies.set(it.id, reply);
      },
      refuse: (message) => this.refuse(rt, it, gen, message),
    }).refused;
  }

  /**
   * Answers a request the console refused (lib/interrupt-limits.ts): a form is cancelled and a
   * permission rejected with the reason as feedback (the CLI's answers carry no error); a question's
   * `userInput.request` gets the reason as its error.
   */
  private refuse(rt: Runtime, it: Interrupt, gen: number, message: string) {
    if (it.kind === "question") {
      this.refusedQuestions.set(it.questions?.[0]?.question ?? "", message);
      if (this.refusedQuestions.size > 50) this.refusedQuestions.delete(this.refusedQuestions.keys().next().value!);
      return;
    }
    const c = this.cli.current;
    if (!c || c.gen !== gen) return;
    const call =
      it.kind === "permission"
        ? c.conn.request("session.permissions.handlePendingPermissionRequest", {
            sessionId: rt.id,
            requestId: it.id.replace(/^perm_/, ""),
            result: { kind: "reject", feedback: message },
          })
        : c.conn.request("session.ui.handlePendingElicitation", {
            sessionId: rt.id,
            requestId: it.id.replace(/^form_/, ""),
            result: { action: "cancel" },
          });
    void call.catch((err: unknown) =>
      log.warn("could not answer a refused request", { backend: this.backendId, error: describeError(err) }),
    );
  }

  /**
   * `userInput.request` (the ask_user tool): the CLI waits for this request's answer. The question
   * itself was raised from its `user_input.requested` event just before; the answer given to it is
   * this request's result.
   */
  userInput(gen: number, params: unknown, signal: AbortSignal): Promise<{ answer: string; wasFreeform: boolean }> {
    const p = obj(params);
    const rt = this.sessions.get(str(p.sessionId) ?? "");
    if (!rt) return Promise.reject(new JsonRpcError(-32602, "Unknown session"));
    const question = str(p.question) ?? "";
    const refusedBefore = this.refusedQuestions.get(question);
    if (refusedBefore !== undefined) {
      this.refusedQuestions.delete(question);
      return Promise.reject(new JsonRpcError(-32000, refusedBefore));
    }
    let it = this.book
      .list(rt.id)
      .find((i) => i.kind === "question" && i.questions?.[0]?.question === question && !this.questionWaits.has(i.id));
    if (!it) {
      const made = questionInterrupt(rt.id, this.book.newId(), p, Date.now());
      if (!made) return Promise.reject(new JsonRpcError(-32602, "A question is needed"));
      const refused = this.raise(rt, made, gen);
      if (refused !== undefined) {
        this.refusedQuestions.delete(question);
        return Promise.reject(new JsonRpcError(-32000, refused));
      }
      it = made;
    }
    const id = it.id;
    return new Promise((resolve, reject) => {
      const finish = (reply: Reply) => {
        this.questionWaits.delete(id);
        if (reply.kind === "question") resolve({ answer: reply.answer, wasFreeform: reply.wasFreeform });
        else
          reject(
            new JsonRpcError(
              -32000,
              reply.kind === "dismissed" ? "The user dismissed the question" : "The question was cancelled",
            ),
          );
      };
      this.awaitReply(id, finish, signal);
    });
  }

  /**
   * `exitPlanMode.request` (Plan mode's exit_plan_mode tool; params `{sessionId, summary,
   * planContent?, actions, recommendedAction}`, answered with `{approved, selectedAction?,
   * feedback?}` — @github/copilot 1.0.102, copilot-sdk/index.js `handleExitPlanModeRequest` and
   * copilot-sdk/types.d.ts `ExitPlanModeRequest`/`ExitPlanModeResult`): the plan is raised as a
   * question with Accept and Keep planning. Accept approves with the action that leaves Plan mode
   * for interactive mode (the CLI then sends `session.mode_changed`); Keep planning, a dismissal or
   * own words do not approve, the words going back as feedback.
   */
  exitPlanMode(
    gen: number,
    params: unknown,
    signal: AbortSignal,
  ): Promise<{ approved: boolean; selectedAction?: string; feedback?: string }> {
    const p = obj(params);
    const rt = this.sessions.get(str(p.sessionId) ?? "");
    if (!rt) return Promise.reject(new JsonRpcError(-32602, "Unknown session"));
    const plan = planInterrupt(rt.id, `plan_${this.book.newId()}`, p, Date.now());
    if (!plan) return Promise.reject(new JsonRpcError(-32602, "A plan summary is needed"));
    const { interrupt: it, accept } = plan;
    const refused = this.raise(rt, it, gen);
    if (refused !== undefined) {
      this.refusedQuestions.delete(it.questions?.[0]?.question ?? "");
      return Promise.resolve({ approved: false, feedback: refused });
    }
    const id = it.id;
    return new Promise((resolve, reject) => {
      const finish = (reply: Reply) => {
        this.questionWaits.delete(id);
        if (reply.kind === "cancel") reject(new JsonRpcError(-32000, "The plan review was cancelled"));
        else if (reply.kind === "question" && !reply.wasFreeform && reply.answer === PLAN_ACCEPT)
          resolve({ approved: true, ...(accept ? { selectedAction: accept } : {}) });
        else if (reply.kind === "question" && reply.wasFreeform && reply.answer.trim())
          resolve({ approved: false, feedback: reply.answer });
        else resolve({ approved: false });
      };
      this.awaitReply(id, finish, signal);
    });
  }

  /**
   * Hands the question's reply to `finish`: one that came before it was asked at once, else when it
   * is answered; a cancelled request settles it as cancelled.
   */
  private awaitReply(id: string, finish: (reply: Reply) => void, signal: AbortSignal): void {
    const early = this.earlyReplies.get(id);
    if (early) {
      this.earlyReplies.delete(id);
      finish(early);
      return;
    }
    this.questionWaits.set(id, { resolve: finish });
    signal.addEventListener(
      "abort",
      () => this.book.settle(id, "cancelled", { kind: "cancel" }) || finish({ kind: "cancel" }),
      { once: true },
    );
  }

  /** Re-reads the CLI's pending permission requests of every attached session (after a reconnect). */
  async refresh(): Promise<void> {
    const c = this.cli.current;
    if (!c) return;
    for (const rt of this.sessions.all()) {
      if (rt.gen !== c.gen) continue;
      const res = parseResult(
        PendingPermissions,
        await c.conn.request("session.permissions.pendingRequests", { sessionId: rt.id }),
        "pendingRequests",
      );
      const open = new Set<string>();
      for (const item of res.items) {
        const it = permissionInterrupt(rt.id, {
          id: item.requestId,
          type: "permission.requested",
          timestamp: Date.now(),
          data: { requestId: item.requestId, promptRequest: item.request },
          ephemeral: false,
        });
        if (!it) continue;
        open.add(it.id);
        if (!this.book.get(it.id)) this.raise(rt, it, c.gen);
      }
      for (const it of this.book.list(rt.id))
        if (it.kind === "permission" && !open.has(it.id))
          this.book.settle(it.id, "answered elsewhere", { kind: "sent" });
    }
  }

  async answer(sessionId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    const p = this.book.take(sessionId, interruptId);
    const it = p.interrupt;
    const rt = this.sessions.get(p.sessionId);
    const c = this.cli.current;
    if (!rt || !c || c.gen !== p.epoch) {
      this.book.settle(interruptId, "cancelled", { kind: "cancel" });
      throw ApiError.conflict("The CLI that asked has restarted; the request is gone");
    }
    if (it.kind === "question") {
      if ("dismiss" in answer) {
        this.book.settle(interruptId, "cancelled", { kind: "dismissed" });
        return;
      }
      const picked = questionAnswers(it, answer)[0]!;
      const value = picked.join(", ");
      const options = it.questions?.[0]?.options.map((o) => o.label) ?? [];
      this.book.settle(interruptId, "answered", {
        kind: "question",
        answer: value,
        wasFreeform: !picked.every((x) => options.includes(x)),
      });
      return;
    }
    if (it.kind === "permission") {
      const requestId = interruptId.replace(/^perm_/, "");
      let result: Record<string, unknown>;
      let outcome: string;
      if ("dismiss" in answer) {
        result = { kind: "reject" };
        outcome = "reject";
      } else if ("decision" in answer) {
        const option = it.permission?.options.find((o) => o.kind === answer.decision);
        if (!option)
          throw ApiError.badRequest(
            answer.decision === "allow_always"
              ? "Copilot offers no session-wide approval for this request: allow it once"
              : `This request offers no "${answer.decision}" option`,
          );
        result =
          answer.decision === "reject"
            ? { kind: "reject", ...(answer.message ? { feedback: answer.message } : {}) }
            : { kind: option.id };
        outcome = answer.decision;
      } else throw ApiError.badRequest("A permission request is answered with {decision, message?} or {dismiss: true}");
      await this.sendAnswer(
        c.conn,
        interruptId,
        "session.permissions.handlePendingPermissionRequest",
        { sessionId: rt.id, requestId, result },
        outcome,
      );
      return;
    }
    // An input form (MCP elicitation).
    const requestId = interruptId.replace(/^form_/, "");
    let result: Record<string, unknown>;
    if ("dismiss" in answer) result = { action: "cancel" };
    else if ("action" in answer) {
      if (answer.action === "accept" && it.input?.schema && !answer.values)
        throw ApiError.badRequest("Accepting a form takes its values");
      result =
        answer.action === "accept" ? { action: "accept", content: answer.values ?? {} } : { action: answer.action };
    } else if ("text" in answer && !it.input?.schema) result = { action: "accept", content: {} };
    else throw ApiError.badRequest("A form is answered with {action: accept|decline|cancel, values?}");
    await this.sendAnswer(
      c.conn,
      interruptId,
      "session.ui.handlePendingElicitation",
      { sessionId: rt.id, requestId, result },
      String(result.action),
    );
  }

  /** Sends an answer the CLI confirms with `{success}`; false means someone else answered first (409). */
  private async sendAnswer(conn: JsonRpcPeer, interruptId: string, method: string, params: unknown, outcome: string) {
    let res: SuccessResult;
    try {
      res = parseResult(SuccessResult, await conn.request(method, params), method);
    } catch (err) {
      throw mapRpcError(err, "send the answer", this.label);
    }
    if (!res.success) {
      this.book.settle(interruptId, "answered elsewhere", { kind: "sent" });
      throw ApiError.conflict("This request was already answered");
    }
    this.book.settle(interruptId, outcome, { kind: "sent" });
  }
}
