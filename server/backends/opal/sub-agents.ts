import "server-only";
import type { Session } from "@/lib/model";
import { str } from "../shared/values";
import type { OpalContext } from "./context";
import { scrub } from "./interrupts";
import { applyOpalEvent, beginTurn, endTurn } from "./normalize";
import type { Child, Runtime } from "./runtime";

/** Ends a sub-agent's open run (its parent's call ended, or the parent's run did): the child session goes idle. */
export function endChild(ctx: OpalContext, c: Child, error?: string) {
  if (!c.turn) return;
  const events = endTurn(c.turn, Date.now(), error ? { error: { name: "SubAgentFailed", message: error } } : {});
  c.turn = undefined;
  ctx.childPublish(c, [
    ...events,
    { type: "session.status", status: "idle" },
    { type: "session.updated", session: ctx.childSession(c) },
  ]);
  ctx.saveChild(c);
}

/** A sub-agent's event: its own child session (a nested timeline under the parent's tool card). */
export function onSubEvent(
  ctx: OpalContext,
  rt: Runtime,
  parentCallId: string,
  subId: string,
  inner: Record<string, unknown>,
  now: number,
) {
  let c = rt.children.get(subId);
  if (!c) {
    const tool = rt.turn?.tools.get(parentCallId);
    const title = str(inner.label) ?? str(tool?.input.label) ?? "Sub-agent";
    c = { id: subId, parentId: rt.id, title, createdAt: now, callId: parentCallId };
    rt.children.set(subId, c);
    ctx.records.seed(subId, { session: ctx.childSession(c), messages: [], todos: [] });
    if (tool && rt.turn) {
      const linked = { ...tool, childSessionId: subId };
      rt.turn.tools.set(parentCallId, linked);
      ctx.publish(rt.id, [{ type: "block.updated", messageId: rt.turn.info.id, block: linked }]);
    }
    const prompt = str(tool?.input.prompt);
    if (prompt) {
      const uid = `${subId}:prompt`;
      ctx.childPublish(c, [
        { type: "message.updated", message: { id: uid, sessionId: subId, role: "user", createdAt: now } },
        { type: "block.updated", messageId: uid, block: { id: `${uid}:t`, kind: "text", text: prompt } },
      ]);
    }
  }
  if (!c.turn) {
    const begun = beginTurn(subId, `${subId}:a${ctx.records.messages(subId).length}`, now + 1);
    c.turn = begun.turn;
    ctx.childPublish(c, [...begun.events, { type: "session.status", status: "busy" }]);
  }
  const r = applyOpalEvent(c.turn, inner, now);
  r.events = scrub(ctx, r.events);
  if (r.ended) {
    c.turn = undefined;
    ctx.childPublish(c, [...r.events, { type: "session.status", status: "idle" }]);
    ctx.saveChild(c);
  } else ctx.childPublish(c, r.events);
}

/** A session's sub-agents: the recorded ones and the live ones, oldest first. */
export async function children(ctx: OpalContext, sessionId: string): Promise<Session[]> {
  const rt = await ctx.known(sessionId);
  const out = new Map<string, Session>();
  for (const t of ctx.transcripts.list()) if (t.session.parentId === rt.id) out.set(t.session.id, t.session);
  for (const c of rt.children.values()) out.set(c.id, ctx.childSession(c));
  return [...out.values()].sort((a, b) => a.createdAt - b.createdAt);
}
