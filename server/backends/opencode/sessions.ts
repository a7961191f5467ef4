/** OpenCode sessions (V1 routes and frames) → canonical: a session, its usage, its live status. Pure and defensive. */
import type { Session, SessionStatus, Usage } from "@/lib/model";
import { usageOf } from "../shared/usage";
import { num, obj, str } from "../shared/values";

export function toUsage(tokens: unknown, cost?: unknown): Usage | undefined {
  const t = obj(tokens);
  const cache = obj(t.cache);
  const counts = { input: num(t.input), output: num(t.output), reasoning: num(t.reasoning) };
  return usageOf({ ...counts, cacheRead: num(cache.read), cacheWrite: num(cache.write), cost: num(cost) });
}

export function toSession(raw: unknown, backendId: string, status: SessionStatus = "idle"): Session | null {
  const s = obj(raw);
  const id = str(s.id);
  if (!id) return null;
  const time = obj(s.time);
  const created = num(time.created) ?? Date.now();
  const out: Session = {
    id,
    backendId,
    title: str(s.title) ?? "Untitled",
    createdAt: created,
    updatedAt: num(time.updated) ?? created,
    status,
  };
  const dir = str(s.directory);
  if (dir) out.directory = dir;
  const parent = str(s.parentID);
  if (parent) out.parentId = parent;
  const model = obj(s.model);
  if (str(model.id))
    out.model = { id: str(model.id)!, ...(str(model.providerID) ? { provider: str(model.providerID)! } : {}) };
  const usage = toUsage(s.tokens, s.cost);
  if (usage) out.usage = usage;
  const revert = obj(s.revert);
  if (str(revert.messageID))
    out.revert = { messageId: str(revert.messageID)!, ...(str(revert.diff) ? { diff: str(revert.diff)! } : {}) };
  const share = obj(s.share);
  if (str(share.url)) out.share = { url: str(share.url)! };
  return out;
}

export function toStatus(raw: unknown): { status: SessionStatus; detail?: string } {
  const s = obj(raw);
  switch (str(s.type)) {
    case "busy":
      return { status: "busy" };
    case "retry": {
      const attempt = num(s.attempt);
      const next = num(s.next);
      const msg = str(s.message) ?? "retrying";
      const when = next ? `, next attempt at ${new Date(next).toISOString()}` : "";
      return { status: "retry", detail: `${msg} (attempt ${attempt ?? "?"}${when})` };
    }
    default:
      return { status: "idle" };
  }
}
