/**
 * opencode-a2a's listings → canonical model (docs/backends/a2a.md): sessions from
 * `opencode.sessions.list`, history pages from `opencode.sessions.messages.list` (merged with what
 * the console saw live), pending interrupts from `opencode.permissions.list` /
 * `opencode.questions.list`. Pure and defensive, like ./normalize.ts.
 */
import type { Block, Message, Session } from "@/lib/model";
import { arr, num, obj, str } from "../shared/values";
import { interruptAsk, partsText, type InterruptAsk } from "./normalize";

/** An item of `opencode.permissions.list` / `opencode.questions.list` as an ask (undefined when unusable). */
export function recoveredAsk(
  item: unknown,
): { ask: InterruptAsk; sessionId: string; taskId?: string; expiresAt?: number } | undefined {
  const o = obj(item);
  const requestId = str(o.request_id);
  const sessionId = str(o.session_id);
  if (!requestId || !sessionId) return undefined;
  const ask = interruptAsk(requestId, str(o.interrupt_type), obj(o.details));
  if (!ask) return undefined;
  const expiresAt = epochMs(o.expires_at);
  const taskId = str(o.task_id);
  return { ask, sessionId, ...(taskId ? { taskId } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) };
}

/** An `expires_at` as epoch ms: numbers in seconds or milliseconds, or an ISO date. */
export function epochMs(v: unknown): number | undefined {
  const n = num(v);
  if (n !== undefined) return n < 1e12 ? n * 1000 : n;
  const s = str(v);
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : undefined;
}

/* ------------------------------------------------------------------------------ opencode listings */

export const OPENCODE_CONTEXT_PREFIX = "ctx:opencode-session:";

/** An item of `opencode.sessions.list` (a Task per session) as a session of `backendId`. */
export function listedSession(item: unknown, backendId: string, now: number): Session | undefined {
  const t = obj(item);
  const session = obj(obj(obj(t.metadata).shared).session);
  const id = str(session.id) ?? str(t.id);
  if (!id) return undefined;
  const title = str(session.title)?.trim();
  // opencode-a2a lists sessions without a time (826cff1, jsonrpc/methods.py `_as_a2a_session_task`):
  // the one the agent gives, else none (0, shown without a time) — never "now".
  const at = epochMs(obj(t.status).timestamp) ?? epochMs(obj(obj(obj(t.metadata).shared).session).updated_at) ?? 0;
  void now;
  return { id, backendId, title: title || "Untitled session", createdAt: at, updatedAt: at, status: "idle" };
}

/**
 * Items of `opencode.sessions.messages.list` (A2A messages with one text part, ids of OpenCode's
 * messages) as canonical messages, in order; an empty one (a tool step) has no blocks.
 */
export function historyMessages(items: unknown, sessionId: string, baseTime: number): Message[] {
  const out: Message[] = [];
  arr(items).forEach((raw, i) => {
    const m = obj(raw);
    const id = str(m.messageId);
    if (!id) return;
    const text = partsText(m.parts);
    // 0.3 `user`, 1.0 `ROLE_USER`.
    const role = m.role === "user" || m.role === "ROLE_USER" ? "user" : "assistant";
    out.push({
      id,
      sessionId,
      role,
      createdAt: baseTime + i,
      blocks: text.trim() ? [{ id: `${id}:text`, kind: "text", text }] : [],
    });
  });
  return out;
}

/**
 * The history page as the agent lists it, with the messages the console saw live kept as it saw
 * them (tool calls, reasoning, errors: the listing has only text). A kept message whose text the
 * listing has differently (the turn went on after the console lost it) takes the listing's text.
 */
export function mergeHistory(history: readonly Message[], kept: readonly Message[]): Message[] {
  const byId = new Map(kept.map((m) => [m.id, m]));
  const merged = history.map((h): { m: Message; kept: boolean } => {
    const k = byId.get(h.id);
    if (!k) return { m: h, kept: false };
    if (h.blocks.length === 0) return { m: k, kept: true };
    const listed = h.blocks[0]?.kind === "text" ? h.blocks[0].text : "";
    const shown = k.blocks
      .filter((b) => b.kind === "text")
      .map((b) => (b.kind === "text" ? b.text : ""))
      .join("");
    if (!listed || shown === listed) return { m: k, kept: true };
    // Keep the kept text blocks' ids (the first one takes the listed text) so a reconcile updates in place.
    const firstText = k.blocks.findIndex((b) => b.kind === "text");
    const blocks: Block[] =
      firstText < 0
        ? [...k.blocks, { id: `${h.id}:text`, kind: "text", text: listed }]
        : k.blocks.flatMap((b, i): Block[] =>
            b.kind !== "text" ? [b] : i === firstText ? [{ ...b, text: listed }] : [],
          );
    return { m: { ...k, blocks }, kept: true };
  });
  // Empty listed messages (a tool step) the console did not see have nothing to show.
  for (let i = merged.length - 1; i >= 0; i--)
    if (!merged[i]!.kept && merged[i]!.m.blocks.length === 0) merged.splice(i, 1);
  // Kept messages keep their times; listed ones are placed between them, in the listing's order.
  const out = merged.map((x) => x.m);
  for (let i = 0; i < out.length; i++) {
    if (merged[i]!.kept) continue;
    const prev = out[i - 1]?.createdAt;
    const nextKept = merged.findIndex((x, j) => j > i && x.kept);
    const at =
      prev !== undefined ? prev + 1 : nextKept >= 0 ? out[nextKept]!.createdAt - (nextKept - i) : out[i]!.createdAt;
    out[i] = { ...out[i]!, createdAt: at };
  }
  for (let i = 1; i < out.length; i++)
    if (out[i]!.createdAt <= out[i - 1]!.createdAt) out[i] = { ...out[i]!, createdAt: out[i - 1]!.createdAt + 1 };
  return out;
}

const textOf = (m: Message) =>
  m.blocks
    .map((b) => (b.kind === "text" ? b.text : ""))
    .join("")
    .trim();

/**
 * The console shows a prompt under its own id (`u_…`) until the agent's history lists it under
 * OpenCode's: kept user messages take the id of the listed user message with the same text (the
 * newest first), and their turn's replies point at it, so a reload or reconcile shows each once.
 */
export function adoptListedIds(history: readonly Message[], kept: readonly Message[]): Message[] {
  const keptIds = new Set(kept.map((m) => m.id));
  const candidates = history.filter((h) => h.role === "user" && !keptIds.has(h.id)).reverse();
  const renamed = new Map<string, string>();
  const used = new Set<string>();
  for (const k of [...kept].reverse()) {
    if (k.role !== "user" || !k.id.startsWith("u_")) continue;
    const text = textOf(k);
    const match = candidates.find((h) => !used.has(h.id) && textOf(h) === text);
    if (!match) continue;
    used.add(match.id);
    renamed.set(k.id, match.id);
  }
  if (renamed.size === 0) return [...kept];
  return kept.map((m) => {
    const to = renamed.get(m.id);
    if (to) {
      const firstText = m.blocks.findIndex((b) => b.kind === "text");
      return {
        ...m,
        id: to,
        blocks: m.blocks.map((b, i): Block => ({ ...b, id: i === firstText ? `${to}:text` : `${to}:${i}` })),
      };
    }
    const parent = m.parentId ? renamed.get(m.parentId) : undefined;
    return parent ? { ...m, parentId: parent } : m;
  });
}

/**
 * A session's newest page as the console shows it: the listed history merged with the messages the
 * console saw (after `adoptListedIds`), plus the kept messages the listing does not hold — a tool
 * step (the listing has only text), or a turn it does not list yet — from the oldest kept message
 * on the page onwards, in time order.
 */
export function historyWindow(history: readonly Message[], kept: readonly Message[]): Message[] {
  const adopted = adoptListedIds(history, kept);
  const merged = mergeHistory(history, adopted);
  const have = new Set(merged.map((m) => m.id));
  const keptIds = new Set(adopted.map((k) => k.id));
  const onPage = merged.filter((m) => keptIds.has(m.id)).map((m) => m.createdAt);
  const oldest = onPage.length ? Math.min(...onPage) : Number.NEGATIVE_INFINITY;
  const unlisted = adopted.filter((m) => !have.has(m.id) && m.createdAt >= oldest);
  if (unlisted.length === 0) return merged;
  return [...merged, ...unlisted]
    .map((m, i) => ({ m, i }))
    .sort((a, b) => a.m.createdAt - b.m.createdAt || a.i - b.i)
    .map((x) => x.m);
}
