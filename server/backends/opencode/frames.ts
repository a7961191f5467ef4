import "server-only";
import type { SessionStatus } from "@/lib/model";
import { describeError } from "../../errors";
import { log } from "../../log";
import type { EventSink, LoadedSession } from "../types";
import type { Session } from "@/lib/model";
import type { ApiEventMapper } from "./api-events";
import type { ApiUsageBook } from "./api-usage";
import { normalizeEvent, toSession, unwrapFrame } from "./normalize";
import type { PendingRequests } from "./pending";

/** What the adapter (./adapter.ts) keeps live, which the stream's frames update. */
export interface FrameContext {
  backendId: string;
  sink: EventSink;
  /** Live status of every session the stream told of (OpenCode omits idle ones). */
  statuses: Map<string, { status: SessionStatus; detail?: string }>;
  directories: Map<string, string>;
  requests: PendingRequests;
  apiEvents: ApiEventMapper;
  apiUsage: ApiUsageBook;
  /** A session's status: its live one, or `waiting` while an interrupt blocks it. */
  statusOf(sessionId: string): SessionStatus;
  getSession(sessionId: string): Promise<Session>;
  loadSession(sessionId: string): Promise<LoadedSession>;
}

/** One V1 `/global/event` frame: its canonical events published, the live state kept (malformed: logged, skipped). */
export function handleFrame(ctx: FrameContext, frame: unknown): void {
  try {
    const f = unwrapFrame(frame);
    if (!f) return;
    if (f.type === "session.deleted") {
      const s = toSession(f.properties.info, ctx.backendId);
      if (s)
        ctx.sink.openSessions(ctx.backendId).includes(s.id) &&
          ctx.sink.publish(ctx.backendId, s.id, { type: "session.status", status: "idle" });
      return;
    }
    for (const { sessionId, event } of normalizeEvent(f.type, f.properties, ctx.backendId)) {
      switch (event.type) {
        case "session.status":
          ctx.statuses.set(sessionId, { status: event.status, ...(event.detail ? { detail: event.detail } : {}) });
          break;
        case "session.updated":
          if (event.session.directory) ctx.directories.set(sessionId, event.session.directory);
          ctx.requests.parents.set(sessionId, event.session.parentId ?? null);
          event.session.status = ctx.statusOf(sessionId);
          break;
        case "interrupt.requested":
          void ctx.requests.request(event.interrupt);
          continue;
        case "interrupt.resolved":
          settled(ctx, event.interruptId, event.outcome);
          continue;
        default:
          break;
      }
      ctx.sink.publish(ctx.backendId, sessionId, event);
    }
  } catch (err) {
    log.warn("skipped malformed opencode frame", { error: describeError(err) });
  }
}

/** One `/api/event` frame (zod-checked in ./api-events.ts): unknown or malformed ones are logged and skipped. */
export function handleApiFrame(ctx: FrameContext, frame: unknown): void {
  try {
    const r = ctx.apiEvents.map(frame);
    switch (r.kind) {
      case "skip":
        if (r.reason)
          log.debug(`skipped ${r.reason} opencode /api frame`, {
            backend: ctx.backendId,
            type: typeof frame === "object" && frame && "type" in frame ? String(frame.type) : undefined,
          });
        return;
      case "deleted":
        if (ctx.sink.openSessions(ctx.backendId).includes(r.sessionId))
          ctx.sink.publish(ctx.backendId, r.sessionId, { type: "session.status", status: "idle" });
        return;
      case "session": {
        // The frame's session is partial (the revert frames carry none): re-read it whole.
        const sid = r.session.id;
        if (!ctx.sink.openSessions(ctx.backendId).includes(sid)) return;
        if (r.reload) {
          void ctx
            .loadSession(sid)
            .then((fresh) => ctx.sink.reconcile(ctx.backendId, sid, fresh))
            .catch((err: unknown) =>
              log.warn("could not reload an opencode session", { sessionId: sid, error: describeError(err) }),
            );
          return;
        }
        void ctx
          .getSession(sid)
          .then((s) => ctx.sink.publish(ctx.backendId, sid, { type: "session.updated", session: s }))
          .catch((err: unknown) =>
            log.warn("could not re-read an opencode session", { sessionId: sid, error: describeError(err) }),
          );
        return;
      }
      case "interrupt":
        void ctx.requests.request(r.interrupt);
        return;
      case "resolved":
        settled(ctx, r.interruptId, r.outcome);
        return;
      case "events":
        for (const { sessionId, event } of r.items) {
          if (event.type === "session.status") {
            if (ctx.statuses.get(sessionId)?.status === event.status && !event.detail) continue;
            ctx.statuses.set(sessionId, { status: event.status, ...(event.detail ? { detail: event.detail } : {}) });
          }
          ctx.sink.publish(ctx.backendId, sessionId, event);
          // A step's usage (`step.ended`) moves the session's total, which the server leaves at zero.
          const usage = event.type === "message.updated" && ctx.apiUsage.messageUpdated(sessionId, event.message);
          if (usage) ctx.sink.publish(ctx.backendId, sessionId, { type: "usage.updated", usage });
        }
    }
  } catch (err) {
    log.warn("skipped malformed opencode /api frame", { error: describeError(err) });
  }
}

/** A request resolved upstream. Already resolved here (answered through the console): the echo adds nothing. */
function settled(ctx: FrameContext, interruptId: string, outcome: string): void {
  const it = ctx.requests.get(interruptId);
  if (it) void ctx.requests.resolve(it, outcome);
}
