import "server-only";
import type { CreateSessionBody } from "@/lib/api";
import type { Message, Session, Todo } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import { resolveSessionDirectory } from "../shared/files";
import { JsonRpcError } from "../shared/json-rpc";
import { firstPage, pageMessages, pageSessions } from "../shared/session-list";
import { obj, str } from "../shared/values";
import type { LoadedSession } from "../types";
import type { OpalContext } from "./context";
import { historyMessages, historyTodos } from "./history";
import { DELETED, DETACHED, type Runtime } from "./runtime";
import { tasksTodos } from "./tool-results";

/** The sessions the console recorded or holds, and those in Opal's list it has no record of (deleted ones left out). */
export async function listSessions(
  ctx: OpalContext,
  q: {
    search?: string;
    limit: number;
    cursor?: string;
  },
): Promise<{ items: Session[]; nextCursor?: string }> {
  const out = new Map<string, Session>();
  const claimed = new Set<string>();
  for (const t of ctx.transcripts.list()) {
    if (t.session.parentId) continue;
    const agent = t.agentSessionId ?? t.session.id;
    if (agent.startsWith(DELETED)) {
      claimed.add(agent.slice(DELETED.length));
      continue;
    }
    out.set(t.session.id, t.session);
    if (!agent.startsWith(DETACHED)) claimed.add(agent);
    claimed.add(t.session.id);
  }
  for (const rt of ctx.runtimes.values()) out.set(rt.id, ctx.sessionOf(rt));
  try {
    // Opal's own list only while it runs: a down backend must not hold the sidebar up.
    for (const s of ctx.proc.current && !ctx.auth.polling ? await ctx.opalList() : []) {
      if (claimed.has(s.id) || out.has(s.id)) continue;
      out.set(s.id, {
        id: s.id,
        backendId: ctx.id,
        title: s.title,
        directory: ctx.defaultCwd,
        createdAt: s.updatedAt,
        updatedAt: s.updatedAt,
        status: "idle",
      });
    }
  } catch (err) {
    log.warn("session/list failed; listing the console's own records", {
      backend: ctx.id,
      error: describeError(err),
    });
  }
  return pageSessions([...out.values()], q);
}

export async function createSession(ctx: OpalContext, input: CreateSessionBody): Promise<Session> {
  const directory = await resolveSessionDirectory(input.directory, ctx.defaultCwd, ctx.opts);
  ctx.auth.notWhilePolling();
  const c = await ctx.proc.whenReady();
  ctx.auth.notWhilePolling();
  let res: Record<string, unknown>;
  try {
    res = obj(
      await c.conn.request("session/start", {
        working_dir: directory,
        session: true,
        features: { sub_agents: true },
      }),
    );
  } catch (err) {
    throw ctx.mapError(err, "start a session");
  }
  const opalId = str(res.session_id);
  if (!opalId) throw ApiError.upstream(`${ctx.opts.label} started a session without an id`);
  const now = Date.now();
  const rt: Runtime = {
    id: opalId,
    opalId,
    directory,
    title: input.title?.trim() || "New session",
    createdAt: now,
    updatedAt: now,
    gen: c.gen,
    children: new Map(),
    queued: [],
  };
  if (obj(res.auth).status === "setup_required" && !ctx.auth.note && !ctx.auth.loggingIn && !ctx.auth.keyFlow)
    void ctx.auth.deviceFlow(c.conn);
  ctx.register(rt);
  ctx.save(rt, [], []);
  return ctx.sessionOf(rt);
}

export async function getSession(ctx: OpalContext, sessionId: string): Promise<Session> {
  const child = ctx.findChild(sessionId);
  if (child) return ctx.childSession(child);
  const t = ctx.transcripts.get(sessionId);
  if (t?.session.parentId) return t.session;
  return ctx.sessionOf(await ctx.known(sessionId));
}

/**
 * Delete: `session/delete`, then the console's record. Opal's delete looks for `<id>.jsonl` while
 * it stores `.dets` files (quirk 2), so its "Session not found" is expected: the session is
 * remembered as deleted here and left out of Opal's list from then on.
 */
export async function deleteSession(ctx: OpalContext, sessionId: string): Promise<void> {
  if (ctx.isChild(sessionId))
    throw ApiError.conflict("An Opal sub-agent is part of its parent session: delete the parent");
  const rt = await ctx.known(sessionId);
  if (rt.turn) throw ApiError.conflict("Wait for the running turn to end before deleting the session");
  const shared = [...ctx.runtimes.values()].some((o) => o !== rt && o.opalId === rt.opalId && !o.left);
  if (!rt.left && !shared && ctx.proc.current && !ctx.auth.polling) {
    try {
      await ctx.proc.current.conn.request("session/delete", { session_id: rt.opalId }, { timeoutMs: 30_000 });
    } catch (err) {
      if (!(err instanceof JsonRpcError && err.code === -32602)) throw ctx.mapError(err, "delete the session");
    }
  }
  ctx.interrupts.expire((p) => p.sessionId === rt.id || p.interrupt.ownerSessionId === rt.id, {
    error: "The session was deleted",
  });
  for (const c of rt.children.values()) ctx.transcripts.delete(c.id);
  for (const t of ctx.transcripts.list()) if (t.session.parentId === rt.id) ctx.transcripts.delete(t.session.id);
  ctx.runtimes.delete(rt.id);
  ctx.shell.forgetCrash(rt.id);
  if (ctx.byOpal.get(rt.opalId) === rt.id) ctx.byOpal.delete(rt.opalId);
  ctx.transcripts.save({
    session: { ...ctx.sessionOf(rt), status: "idle" },
    messages: [],
    todos: [],
    agentSessionId: `${DELETED}${rt.opalId}`,
  });
}

export async function renameSession(ctx: OpalContext, sessionId: string, title: string): Promise<Session> {
  const rt = await ctx.known(sessionId);
  rt.title = title;
  rt.updatedAt = Date.now();
  const s = ctx.sessionOf(rt);
  ctx.save(rt);
  ctx.publish(rt.id, [{ type: "session.updated", session: s }]);
  return s;
}

export async function loadSession(ctx: OpalContext, sessionId: string): Promise<LoadedSession> {
  const child = ctx.findChild(sessionId);
  if (child)
    return {
      session: ctx.childSession(child),
      messages: ctx.records.messages(child.id),
      interrupts: ctx.interrupts.list(child.id),
      todos: [],
    };
  const t = ctx.transcripts.get(sessionId);
  if (t?.session.parentId) return { session: t.session, messages: t.messages ?? [], interrupts: [], todos: [] };
  const rt = await ctx.known(sessionId);
  const all = await allMessages(ctx, rt);
  return {
    session: ctx.sessionOf(rt),
    ...firstPage(all.messages),
    interrupts: ctx.pendingFor(rt.id),
    todos: all.todos,
  };
}

/** A session's messages and plan: the console's record, else Opal's history (and `tasks/list`). */
export async function allMessages(ctx: OpalContext, rt: Runtime): Promise<{ messages: Message[]; todos: Todo[] }> {
  const rec = ctx.record(rt);
  if (rec) return rec;
  const conn = await ctx.attach(rt);
  let hist: Record<string, unknown>;
  try {
    hist = obj(await conn.request("session/history", { session_id: rt.opalId }));
  } catch (err) {
    throw ctx.mapError(err, "read the history");
  }
  const messages = historyMessages(rt.id, hist.messages, rt.updatedAt);
  let todos = historyTodos(hist.messages);
  try {
    todos = tasksTodos(obj(await conn.request("tasks/list", { session_id: rt.opalId })).tasks);
  } catch {
    // tasks/list is missing on the refactor branch: the history's last tasks result stands
  }
  // What the hub is handed now: the record goes on from it.
  ctx.records.seed(rt.id, { session: ctx.sessionOf(rt), messages, todos: todos ?? [] });
  return { messages, todos: todos ?? [] };
}

export async function loadMessages(
  ctx: OpalContext,
  sessionId: string,
  q: { before?: string; limit: number },
): Promise<{ items: Message[]; nextCursor?: string }> {
  const child = ctx.findChild(sessionId);
  if (child) return pageMessages(ctx.records.messages(child.id), q);
  const rt = await ctx.known(sessionId);
  return pageMessages((await allMessages(ctx, rt)).messages, q);
}
