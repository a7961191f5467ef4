import "server-only";
import { armStopGrace, clearStopGrace, STOP_GRACE_MS, statusEvent } from "../shared/turn-lifecycle";
import type { PromptBody } from "@/lib/api";
import type { Message, MessageInfo, TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import { restartNoticeEvent } from "../shared/stdio-shell";
import { obj, str } from "../shared/values";
import type { OpalContext } from "./context";
import { turnChanges } from "./diffs";
import { historyMessages } from "./history";
import { scrub } from "./interrupts";
import { applyOpalEvent, beginTurn, endTurn, generatedTitle, notice } from "./normalize";
import { newId, type Runtime } from "./runtime";
import { setModel } from "./option-changes";
import { endChild, onSubEvent } from "./sub-agents";

/** The server of `gen` exited: its interrupts expire and its sessions' running turns end with the error. */
export function onExit(ctx: OpalContext, gen: number, turnError: string) {
  ctx.interrupts.expire((p) => p.epoch === gen, { error: "the server exited" });
  for (const rt of ctx.runtimes.values()) {
    if (rt.gen !== gen) continue;
    rt.gen = undefined;
    if (!rt.turn) continue;
    ctx.shell.noteCrash(rt.id, rt.turn.info.id);
    finishTurn(ctx, rt, endTurn(rt.turn, Date.now(), { error: { name: "AgentExited", message: turnError } }));
  }
}

/** The server is back: the turn a crash ended gets the restart notice, kept in the session's record. */
export function restartNotice(ctx: OpalContext, sessionId: string, messageId: string, text: string) {
  ctx.publish(sessionId, [restartNoticeEvent(messageId, text)]);
  const rt = ctx.runtimes.get(sessionId);
  if (rt) ctx.save(rt);
}

export async function prompt(ctx: OpalContext, sessionId: string, body: PromptBody): Promise<void> {
  if (ctx.isChild(sessionId))
    throw ApiError.conflict(
      "An Opal sub-agent runs inside its parent's turn and takes no prompts of its own: prompt the parent session",
    );
  const rt = await ctx.known(sessionId);
  if (body.parts.some((p) => p.type !== "text"))
    throw ApiError.badRequest(`${ctx.opts.label} takes text prompts (Opal has no attachments)`);
  const text = body.parts.map((p) => (p.type === "text" ? p.text : "")).join("\n\n");
  await ctx.sink.openSession?.(ctx.id, rt.id);
  const conn = await ctx.attach(rt);
  if (body.model && body.model.id !== rt.model) await setModel(ctx, rt, body.model.id);
  const now = Date.now();
  const userId = `u_${newId()}`;
  const busy = Boolean(rt.turn);
  const events: TimelineEvent[] = [
    { type: "message.updated", message: { id: userId, sessionId: rt.id, role: "user", createdAt: now } },
    { type: "block.updated", messageId: userId, block: { id: `${userId}:t`, kind: "text", text } },
  ];
  if (!busy) {
    rt.queued = [];
    const begun = beginTurn(rt.id, `a_${newId()}`, now + 1, {
      parentId: userId,
      ...(rt.model ? { model: { provider: "copilot", id: rt.model } } : {}),
    });
    rt.turn = begun.turn;
    rt.userId = userId;
    events.push(...begun.events, statusEvent("busy"));
  }
  if (rt.title === "New session") {
    rt.title = text.replace(/\s+/g, " ").trim().slice(0, 60) || rt.title;
    rt.autoTitle = true;
    events.push({ type: "session.updated", session: ctx.sessionOf(rt) });
  }
  ctx.publish(rt.id, events);
  let res: Record<string, unknown>;
  try {
    res = obj(await conn.request("agent/prompt", { session_id: rt.opalId, text }));
  } catch (err) {
    if (!busy && rt.turn)
      finishTurn(
        ctx,
        rt,
        endTurn(rt.turn, Date.now(), { error: { name: "PromptFailed", message: describeError(err) } }),
      );
    throw ctx.mapError(err, "take the prompt");
  }
  if (res.queued === true && busy && rt.turn)
    ctx.publish(rt.id, [
      notice(rt.turn, "info", "Queued: Opal adds this message when the model next stops calling tools."),
    ]);
}

/**
 * Ends a session's run: its interrupts and sub-agents end, the user message gets the run's changes,
 * the session goes idle.
 */
export function finishTurn(ctx: OpalContext, rt: Runtime, events: TimelineEvent[]) {
  clearStopGrace(rt);
  ctx.interrupts.expire((p) => p.sessionId === rt.id || p.interrupt.ownerSessionId === rt.id, {
    error: "The run ended",
  });
  const turn = rt.turn;
  rt.turn = undefined;
  rt.queued = [];
  rt.updatedAt = Date.now();
  for (const c of rt.children.values())
    endChild(ctx, c, turn?.info.error ? `The parent's run ended: ${turn.info.error.message}` : undefined);
  const changes = turn ? turnChanges(turn) : [];
  const user = rt.userId ? ctx.record(rt)?.messages.find((m) => m.id === rt.userId) : undefined;
  const stamp: TimelineEvent[] =
    user && changes.length ? [{ type: "message.updated", message: { ...infoOf(user), diffs: changes } }] : [];
  rt.userId = undefined;
  ctx.publish(rt.id, [
    ...events,
    ...stamp,
    statusEvent("idle"),
    { type: "session.updated", session: ctx.sessionOf(rt) },
  ]);
  ctx.save(rt);
}

/** An `agent/event` of the live process: the session's run (or its title, or a sub-agent's run). */
export function onEvent(ctx: OpalContext, gen: number, params: unknown) {
  const cur = ctx.proc.current;
  if (cur && cur.gen !== gen) return;
  const p = obj(params);
  const consoleId = ctx.byOpal.get(str(p.session_id) ?? "");
  const rt = consoleId ? ctx.runtimes.get(consoleId) : undefined;
  if (!rt) return;
  try {
    const now = Date.now();
    const type = str(p.type);
    const title = type === "unknown" ? generatedTitle(str(p.raw) ?? "") : undefined;
    if (title) {
      // Opal names the session (during or just after a run): it replaces a title made from the prompt.
      if (rt.autoTitle && title !== rt.title) {
        rt.title = title;
        rt.autoTitle = false;
        ctx.publish(rt.id, [{ type: "session.updated", session: ctx.sessionOf(rt) }]);
        if (!rt.turn) ctx.save(rt);
      }
      return;
    }
    if (!rt.turn) {
      // A run the console did not start (another client's prompt, applied while idle): a new assistant message.
      if (type !== "agent_start" && type !== "message_applied") return;
      const begun = beginTurn(rt.id, `a_${newId()}`, now);
      rt.turn = begun.turn;
      ctx.publish(rt.id, [...begun.events, statusEvent("busy")]);
      if (type === "agent_start") return;
    }
    const turn = rt.turn;
    if (!turn) return;
    const r = applyOpalEvent(turn, p, now);
    if (r.sub) {
      onSubEvent(ctx, rt, r.sub.parentCallId, r.sub.subSessionId, r.sub.inner, now);
      return;
    }
    if (r.status)
      ctx.publish(rt.id, [
        { type: "session.status", status: ctx.pendingFor(rt.id).length ? "waiting" : "busy", detail: r.status },
      ]);
    if (r.queued) {
      // Opal applies every prompt (`message_applied`), also one sent while idle: only one it had queued is news.
      if (!r.queued.applied) rt.queued.push(r.queued.text);
      else {
        const at = rt.queued.indexOf(r.queued.text);
        if (at >= 0) {
          rt.queued.splice(at, 1);
          r.events.push(notice(turn, "info", `Opal took the queued message: ${r.queued.text.slice(0, 200)}`));
        }
      }
    }
    if (r.toolEnded?.tool === "sub_agent")
      for (const c of rt.children.values())
        if (c.callId === r.toolEnded.callId) endChild(ctx, c, r.toolEnded.ok ? undefined : r.toolEnded.error);
    r.events = scrub(ctx, r.events);
    if (r.ended) finishTurn(ctx, rt, r.events);
    else ctx.publish(rt.id, r.events);
  } catch (err) {
    log.warn("skipped an Opal event that could not be applied", { backend: ctx.id, error: describeError(err) });
  }
}

export async function abort(ctx: OpalContext, sessionId: string): Promise<void> {
  if (ctx.isChild(sessionId)) return;
  const rt = await ctx.known(sessionId);
  if (!rt.turn) return;
  const c = ctx.proc.current;
  if (c && rt.gen === c.gen)
    await c.conn
      .request("agent/abort", { session_id: rt.opalId })
      .catch((err: unknown) => log.warn("agent/abort failed", { backend: ctx.id, error: describeError(err) }));
  armStopGrace(rt, ctx.opts.abortGraceMs ?? STOP_GRACE_MS, () => {
    if (rt.turn)
      finishTurn(
        ctx,
        rt,
        endTurn(rt.turn, Date.now(), {
          error: { name: "Aborted", message: "Stopped (Opal did not confirm the abort)", aborted: true },
        }),
      );
  });
}

export async function compact(ctx: OpalContext, sessionId: string): Promise<void> {
  const rt = await ctx.known(sessionId);
  if (rt.turn) throw ApiError.conflict("Wait for the running turn to end before compacting");
  const conn = await ctx.attach(rt);
  ctx.blocking++;
  try {
    // `keep_recent` is a token budget (quirk 1), not a message count, and Opal ignores one ≤ 0 (its
    // default keeps 20,000 tokens: nothing of a small session). 1 keeps only the newest message.
    await conn.request("session/compact", { session_id: rt.opalId, keep_recent: 1 }, { timeoutMs: 180_000 });
  } catch (err) {
    throw ctx.mapError(err, "compact the conversation");
  } finally {
    ctx.blocking--;
  }
  // The console's record keeps what was shown; the summary Opal now starts from is added after it.
  const hist = obj(await conn.request("session/history", { session_id: rt.opalId }).catch(() => ({})));
  const summary = historyMessages(rt.id, hist.messages, Date.now()).find((m) => m.summary);
  const now = Date.now();
  const id = `c_${newId()}`;
  ctx.publish(rt.id, [
    {
      type: "message.updated",
      message: { id, sessionId: rt.id, role: "assistant", createdAt: now, completedAt: now, summary: true },
    },
    {
      type: "block.updated",
      messageId: id,
      block: {
        id: `${id}:n`,
        kind: "notice",
        level: "info",
        code: "compaction",
        text: summary ? "Opal compacted the conversation" : "Opal had nothing to compact",
      },
    },
    ...(summary
      ? summary.blocks.map((b) => ({
          type: "block.updated" as const,
          messageId: id,
          block: { ...b, id: `${id}:${b.id}` },
        }))
      : []),
  ]);
  ctx.save(rt);
}

/** A message's metadata (`message.updated` carries no blocks). */
function infoOf(m: Message): MessageInfo {
  const { blocks: _b, ...info } = m;
  return info;
}
