/**
 * The Copilot CLI's session events as the mapping reads them (`session.event` notifications and the
 * entries of `session.getMessages`). Pure and defensive, like ./normalize.ts.
 */
import { isObj, obj, str, type Obj } from "../shared/values";

/** One event of a Copilot session, as far as the mapping relies on it. */
export interface CopilotEvent {
  id: string;
  type: string;
  timestamp: number;
  data: Obj;
  ephemeral: boolean;
  /** Set for events of a subagent (not shown in the root timeline). */
  agentId?: string;
}

/** A `session.event` event (or an entry of `session.getMessages`), or undefined when it is not one. */
export function parseEvent(raw: unknown): CopilotEvent | undefined {
  if (!isObj(raw)) return undefined;
  const id = str(raw.id);
  const type = str(raw.type);
  if (!id || !type) return undefined;
  const ts = Date.parse(str(raw.timestamp) ?? "");
  const agentId = str(raw.agentId);
  return {
    id,
    type,
    timestamp: Number.isFinite(ts) ? ts : 0,
    data: obj(raw.data),
    ephemeral: raw.ephemeral === true,
    ...(agentId ? { agentId } : {}),
  };
}

/** The `{sessionId, event}` of a `session.event` notification. */
export function parseSessionEvent(params: unknown): { sessionId: string; event: CopilotEvent } | undefined {
  const p = obj(params);
  const sessionId = str(p.sessionId);
  const event = parseEvent(p.event);
  return sessionId && event ? { sessionId, event } : undefined;
}

/** An event's text on one line, cut to `n` characters (for titles). */
export function clip(s: string, n = 120): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}
