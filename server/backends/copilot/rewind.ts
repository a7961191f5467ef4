import "server-only";
import type { Session, TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import { mapRpcError, parseResult, RewindPoints, RewindPreview, RewindResult } from "./rpc";
import type { Runtime } from "./runtime";
import type { CopilotSessions } from "./sessions";

/**
 * Revert onto Copilot's rewind points: a point is a prompt (its user message). The revert is
 * checked (`previewRewind`) and marked — the timeline dims what goes — and carried out with the
 * next prompt (`rewind`, conversation and files), so Unrevert can still take it back until then.
 */
export class CopilotRewind {
  constructor(
    private backendId: string,
    private label: string,
    private sessions: CopilotSessions,
    private publish: (sessionId: string, events: TimelineEvent[]) => void,
  ) {}

  async revert(sessionId: string, messageId: string): Promise<Session> {
    const rt = await this.sessions.known(sessionId);
    if (rt.tl.busy) throw ApiError.conflict("Wait for the running turn to end before reverting");
    const c = await this.sessions.attach(rt);
    const points = parseResult(
      RewindPoints,
      await c.conn.request("session.history.listRewindPoints", { sessionId: rt.id }).catch((err: unknown) => {
        throw mapRpcError(err, "list the rewind points", this.label);
      }),
      "listRewindPoints",
    );
    if (!points.points.some((p) => p.eventId === messageId)) {
      const history = await this.sessions.history(rt);
      if (!history.some((m) => m.id === messageId)) throw ApiError.notFound(`Unknown message: ${messageId}`);
      throw ApiError.conflict(`${this.label} rewinds to one of your prompts: revert from a prompt, not from a reply`);
    }
    const preview = parseResult(
      RewindPreview,
      await c.conn
        .request("session.history.previewRewind", { sessionId: rt.id, eventId: messageId })
        .catch((err: unknown) => {
          throw mapRpcError(err, "preview the rewind", this.label);
        }),
      "previewRewind",
    );
    if (!preview.available)
      throw ApiError.conflict(`${this.label} cannot rewind here${preview.reason ? ` (${preview.reason})` : ""}`);
    rt.revert = { messageId };
    const s = this.sessions.sessionOf(rt);
    this.publish(rt.id, [{ type: "session.updated", session: s }]);
    return s;
  }

  async unrevert(sessionId: string): Promise<Session> {
    const rt = await this.sessions.known(sessionId);
    rt.revert = undefined;
    const s = this.sessions.sessionOf(rt);
    this.publish(rt.id, [{ type: "session.updated", session: s }]);
    return s;
  }

  /** Carries out a pending revert: the CLI restores the files and drops the conversation from the point. */
  async apply(rt: Runtime) {
    const point = rt.revert;
    if (!point) return;
    const c = await this.sessions.attach(rt);
    let res: RewindResult;
    try {
      res = parseResult(
        RewindResult,
        await c.conn.request(
          "session.history.rewind",
          { sessionId: rt.id, eventId: point.messageId, mode: "conversation-and-files" },
          { timeoutMs: 120_000 },
        ),
        "rewind",
      );
    } catch (err) {
      throw mapRpcError(err, "rewind the session", this.label);
    }
    if (res.outcome !== "success")
      throw ApiError.conflict(`${this.label} could not rewind: ${res.outcome}${res.error ? ` (${res.error})` : ""}`);
    rt.revert = undefined;
    this.publish(rt.id, [{ type: "session.updated", session: this.sessions.sessionOf(rt) }]);
    // The dropped messages leave the timeline (the hub diffs the fresh history against its state).
    await this.sessions.reload(rt);
  }

  /** `session.snapshot_rewind` (a rewind by any client): the session is reloaded where it is open. */
  async reloadAfterRewind(rt: Runtime) {
    try {
      await this.sessions.reload(rt);
    } catch (err) {
      log.warn("could not reload a session after a rewind", { backend: this.backendId, error: describeError(err) });
    }
  }
}
