import "server-only";
import type { InterruptAnswer } from "@/lib/api";
import type { Interrupt, TimelineEvent } from "@/lib/model";
import { JsonRpcError } from "../shared/json-rpc";
import { obj, str } from "../shared/values";
import type { OpalContext } from "./context";
import { replyFor, requestInterrupt, type OpalReply, type OpalRequest } from "./requests";

/**
 * A `client/*` request: an interrupt at the session that asked (a sub-agent asks through its
 * parent), answered whenever the user is ready.
 */
export function onRequest(
  ctx: OpalContext,
  gen: number,
  method: OpalRequest,
  params: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const p = obj(params);
  const asker = str(p.session_id) ?? "";
  const consoleId = ctx.byOpal.get(asker);
  let rt = consoleId ? ctx.runtimes.get(consoleId) : undefined;
  // A sub-agent asks with its own session id: the question belongs to its child session and is raised at the parent.
  const child = rt ? undefined : ctx.findChild(asker);
  if (child) rt = ctx.runtimes.get(child.parentId);
  if (!rt) return Promise.reject(JsonRpcError.invalidParams("Session not found"));
  const turn = child?.turn ?? rt.turn;
  const tool = turn ? [...turn.tools.values()].reverse().find((b) => b.status === "running") : undefined;
  const it: Interrupt = {
    id: ctx.interrupts.newId(),
    sessionId: child ? child.id : rt.id,
    ...(child ? { ownerSessionId: rt.id } : {}),
    createdAt: Date.now(),
    ...requestInterrupt(method, p),
    ...(tool ? { toolCallId: tool.callId } : {}),
    ...(turn ? { messageId: turn.info.id } : {}),
  };
  const owner = rt;
  return new Promise((resolve, reject) => {
    const respond = (r: OpalReply) => {
      if ("result" in r) resolve(r.result);
      else reject(new JsonRpcError(-32000, r.error));
      if (owner.turn && ctx.pendingFor(owner.id).length <= 1)
        ctx.publish(owner.id, [{ type: "session.status", status: "busy" }]);
    };
    const refuse = (message: string) => reject(new JsonRpcError(-32000, message));
    if (
      ctx.interrupts.raise({ sessionId: it.sessionId, interrupt: it, epoch: gen, respond, refuse }, [
        { type: "interrupt.requested", interrupt: it },
      ]).refused
    )
      return;
    ctx.publish(owner.id, [{ type: "session.status", status: "waiting" }]);
    signal.addEventListener(
      "abort",
      () => ctx.interrupts.expire((x) => x.interrupt.id === it.id, { error: "connection closed" }),
      { once: true },
    );
  });
}

export async function answerInterrupt(
  ctx: OpalContext,
  sessionId: string,
  interruptId: string,
  answer: InterruptAnswer,
): Promise<void> {
  // Answered through the session that asked or the one that owns it (a sub-agent's parent).
  const asked = ctx.interrupts.get(interruptId);
  const p = ctx.interrupts.take(
    asked && asked.interrupt.ownerSessionId === sessionId ? asked.sessionId : sessionId,
    interruptId,
  );
  const { reply, outcome } = replyFor(p.interrupt, answer);
  if (p.interrupt.input?.sensitive && p.interrupt.toolCallId) ctx.sensitiveCalls.add(p.interrupt.toolCallId);
  ctx.interrupts.settle(interruptId, outcome, reply);
}

/** A tool that was given a sensitive input keeps no diff: Opal's diff of the write holds the text. */
export function scrub(ctx: OpalContext, events: TimelineEvent[]): TimelineEvent[] {
  if (!ctx.sensitiveCalls.size) return events;
  return events.map((e) => {
    if (
      e.type !== "block.updated" ||
      e.block.kind !== "tool" ||
      !ctx.sensitiveCalls.has(e.block.callId) ||
      !e.block.diff
    )
      return e;
    const { diff: _d, ...block } = e.block;
    return { ...e, block };
  });
}
