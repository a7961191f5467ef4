import "server-only";
import type { Session } from "@/lib/model";
import { ApiError } from "../../errors";
import { arr, isObj, obj, str } from "../shared/values";
import type { OpalContext } from "./context";
import { newId, type Runtime } from "./runtime";
import { allMessages } from "./sessions";

/**
 * A branch (`session/branch`): Opal moves the session's leaf back to the message, and the next
 * prompt forks its tree. The console shows it as a fork: a new console session on the same Opal
 * session holds the conversation up to the message; the old console session keeps the path as it
 * was shown (Opal does not serialize its tree) and can no longer be prompted.
 */
export async function fork(ctx: OpalContext, sessionId: string, messageId?: string): Promise<Session> {
  const rt = await ctx.known(sessionId);
  if (rt.turn) throw ApiError.conflict("Wait for the running turn to end before branching");
  const conn = await ctx.attach(rt);
  const mine = (await allMessages(ctx, rt)).messages;
  const at = messageId === undefined ? mine.length - 1 : mine.findIndex((m) => m.id === messageId);
  if (at < 0 && messageId !== undefined) throw ApiError.notFound(`Unknown message: ${messageId}`);
  // Keep: before a user message, through an assistant message.
  const keep = messageId === undefined ? mine.length : mine[at]!.role === "user" ? at : at + 1;
  const kept = mine.slice(0, keep);
  const runs = kept.filter((m) => m.role === "user").length;
  let hist: Record<string, unknown>[];
  try {
    hist = arr(obj(await conn.request("session/history", { session_id: rt.opalId })).messages).filter(isObj);
  } catch (err) {
    throw ctx.mapError(err, "read the history");
  }
  // Opal's entry to branch at: the last message of run `runs` (before its next user message).
  const userIdx = hist.flatMap((m, i) => (m.role === "user" ? [i] : []));
  const entry = runs < userIdx.length ? userIdx[runs]! - 1 : hist.length - 1;
  const now = Date.now();
  const branch: Runtime = {
    id: newId() + newId(),
    opalId: rt.opalId,
    directory: rt.directory,
    title: `${rt.title} (branch)`,
    createdAt: now,
    updatedAt: now,
    children: new Map(),
    forkedFrom: { sessionId: rt.id, ...(messageId ? { messageId } : {}) },
    ...(rt.model ? { model: rt.model } : {}),
    ...(rt.thinking ? { thinking: rt.thinking } : {}),
    queued: [],
  };
  if (runs === 0 || entry < 0) {
    // Nothing to keep: a fresh Opal session in the same directory.
    const res = obj(
      await conn
        .request("session/start", { working_dir: rt.directory, session: true, features: { sub_agents: true } })
        .catch((err: unknown) => {
          throw ctx.mapError(err, "start a session");
        }),
    );
    branch.opalId = str(res.session_id) ?? "";
    branch.gen = ctx.proc.current?.gen;
  } else {
    if (entry < hist.length - 1) {
      try {
        await conn.request("session/branch", { session_id: rt.opalId, entry_id: str(hist[entry]!.id) ?? "" });
      } catch (err) {
        throw ctx.mapError(err, "branch the session");
      }
    }
    branch.gen = rt.gen;
    // The old console session keeps its record and hands the Opal session over.
    ctx.save(rt);
    rt.left = branch.id;
    ctx.byOpal.delete(rt.opalId);
    ctx.save(rt);
  }
  const copied = kept.map((m) => ({
    ...m,
    sessionId: branch.id,
    blocks: m.blocks.filter((b) => b.kind !== "tool" || b.status !== "running"),
  }));
  ctx.register(branch);
  ctx.save(branch, copied, []);
  return ctx.sessionOf(branch);
}
