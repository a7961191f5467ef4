/**
 * OpenCode → canonical model. Pure functions, fed in tests with the real captures. Upstream frames
 * are untrusted: every accessor is defensive and a malformed frame yields nothing, never a throw.
 */
import type { TimelineEvent, Todo } from "@/lib/model";
import { isObj, obj, str, arr, type Obj } from "../shared/values";
import { toBlock, toMessageError, toMessageInfo } from "./messages";
import { toPermissionInterrupt, toQuestionInterrupt } from "./interrupts";
import { toSession, toStatus } from "./sessions";

// The mapping's parts live beside it; this module stays its entry point.
export { toAgentList, toModelList } from "./catalog";
export { keepShownText, settleIdle } from "./cut-replies";
export { toPermissionInterrupt, toQuestionInterrupt } from "./interrupts";
export {
  normalizeToolName,
  toBlock,
  toFileDiffs,
  toMessage,
  toMessageError,
  toMessageInfo,
  toToolBlock,
} from "./messages";
export { toSession, toStatus, toUsage } from "./sessions";

export interface Normalized {
  sessionId: string;
  event: TimelineEvent;
}

export function toTodos(raw: unknown): Todo[] {
  return arr(raw).flatMap((t) => {
    const o = obj(t);
    const content = str(o.content);
    if (!content) return [];
    return [
      { content, status: str(o.status) ?? "pending", ...(str(o.priority) ? { priority: str(o.priority)! } : {}) },
    ];
  });
}

/* ------------------------------------------------------------------------------ events */

/** Unwraps a `/global/event` frame (`{directory, payload}`) or passes a `/event` frame through. */
export function unwrapFrame(raw: unknown): { type: string; properties: Obj; directory?: string } | null {
  const f = obj(raw);
  const payload = isObj(f.payload) ? f.payload : f;
  const type = str(payload.type);
  if (!type) return null;
  const dir = str(f.directory);
  return { type, properties: obj(payload.properties), ...(dir ? { directory: dir } : {}) };
}

/**
 * One OpenCode event → canonical events. `backendId` stamps sessions; `statusOf` gives the live
 * status so a `session.updated` keeps it. Unknown and noise events yield [].
 */
export function normalizeEvent(type: string, props: Obj, backendId: string, now = Date.now()): Normalized[] {
  const sessionId = str(props.sessionID);
  switch (type) {
    case "session.created":
    case "session.updated": {
      const s = toSession(props.info, backendId);
      return s ? [{ sessionId: s.id, event: { type: "session.updated", session: s } }] : [];
    }
    case "session.status": {
      if (!sessionId) return [];
      const st = toStatus(props.status);
      return [
        {
          sessionId,
          event: { type: "session.status", status: st.status, ...(st.detail ? { detail: st.detail } : {}) },
        },
      ];
    }
    case "session.error": {
      if (!sessionId) return [];
      const err = toMessageError(props.error);
      if (!err || err.aborted) return [];
      return [{ sessionId, event: { type: "error", message: err.message, code: err.name } }];
    }
    case "message.updated": {
      const info = toMessageInfo(props.info);
      return info ? [{ sessionId: info.sessionId, event: { type: "message.updated", message: info } }] : [];
    }
    case "message.removed": {
      const messageId = str(props.messageID);
      return sessionId && messageId ? [{ sessionId, event: { type: "message.removed", messageId } }] : [];
    }
    case "message.part.updated": {
      const part = obj(props.part);
      const sid = str(part.sessionID) ?? sessionId;
      const messageId = str(part.messageID);
      if (!sid || !messageId) return [];
      const block = toBlock(part);
      return block ? [{ sessionId: sid, event: { type: "block.updated", messageId, block } }] : [];
    }
    case "message.part.removed": {
      const messageId = str(props.messageID);
      const blockId = str(props.partID);
      return sessionId && messageId && blockId
        ? [{ sessionId, event: { type: "block.removed", messageId, blockId } }]
        : [];
    }
    case "message.part.delta": {
      const messageId = str(props.messageID);
      const blockId = str(props.partID);
      const delta = str(props.delta);
      if (!sessionId || !messageId || !blockId || delta === undefined || str(props.field) !== "text") return [];
      return [{ sessionId, event: { type: "block.delta", messageId, blockId, field: "text", delta } }];
    }
    case "todo.updated":
      return sessionId ? [{ sessionId, event: { type: "todo.updated", todos: toTodos(props.todos) } }] : [];
    case "permission.asked": {
      const it = toPermissionInterrupt(props, now);
      return it ? [{ sessionId: it.sessionId, event: { type: "interrupt.requested", interrupt: it } }] : [];
    }
    case "question.asked": {
      const it = toQuestionInterrupt(props, now);
      return it ? [{ sessionId: it.sessionId, event: { type: "interrupt.requested", interrupt: it } }] : [];
    }
    case "permission.replied":
      return resolved(
        sessionId,
        str(props.requestID) ?? str(props.permissionID),
        str(props.reply) ?? str(props.response) ?? "replied",
      );
    case "question.replied":
    case "question.rejected":
      return resolved(sessionId, str(props.requestID), type === "question.replied" ? "answered" : "rejected");
    default:
      return [];
  }
}

/** A request settled upstream (nothing without its session or request id). */
function resolved(sessionId: string | undefined, interruptId: string | undefined, outcome: string): Normalized[] {
  return sessionId && interruptId ? [{ sessionId, event: { type: "interrupt.resolved", interruptId, outcome } }] : [];
}
