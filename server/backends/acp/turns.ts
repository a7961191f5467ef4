import "server-only";
import type { AgentCapabilities, ContentBlock, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { PromptBody, PromptPart } from "@/lib/api";
import type { MessageInfo, TimelineEvent } from "@/lib/model";
import { isTextMime, parseDataUrl } from "@/lib/attachments";
import type { ApiError } from "../../errors";
import type { AgentProcess } from "../shared/agent-process";
import type { InterruptBook } from "../shared/interrupts";
import * as lifecycle from "../shared/turn-lifecycle";
import type { EventSink } from "../types";
import { rpcCode } from "./errors";
import type { AcpLink } from "./link";
import { applyUpdate, beginTurn, endTurn, failTurn } from "./normalize";
import { DEFAULT_TITLE, drainIncoming, type AcpSessions, type Conn, type Runtime, type Turn } from "./sessions";
import type { V2Applied } from "./v2-updates";

/** The answer to a permission request nobody will answer any more (ACP: after `session/cancel`). */
export const CANCELLED: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

/** How long a v2 turn whose prompt result carried v1's `stopReason` waits for its `state_update` before it fails. */
const V1_RESULT_GRACE_MS = 2_000;

/** What a v2 agent answering the v1 way means for the user, and what to do about it. */
export function protocolErrorMessage(label: string, what: string): string {
  return `${label} broke ACP v2: ${what}. If its ACP v2 support misbehaves, set "acpVersion": 1 in this backend's config to speak ACP v1 with it (docs/backends/acp.md, "ACP versions").`;
}

/** What the turns need of the adapter. */
export interface AcpTurnsHost {
  backendId: string;
  label: string;
  sink: EventSink;
  sessions: AcpSessions;
  interrupts: InterruptBook<RequestPermissionResponse>;
  proc: AgentProcess<AcpLink>;
  agentCaps(): AgentCapabilities;
  emit(rt: Runtime, events: TimelineEvent[]): void;
  mapError(err: unknown, what: string): ApiError;
  /** How long an agent may ignore `session/cancel` before the turn is ended locally (default 10 s). */
  cancelGraceMs?: number | undefined;
}

/**
 * ACP turns: `session/prompt` out (the turn runs in the background, its `session/update`s come in
 * through the adapter), its result or failure in, later prompts queued, `session/cancel` with a
 * grace, and the turns a dead agent process leaves.
 */
export class AcpTurns {
  constructor(private host: AcpTurnsHost) {}

  /** The prompt as ACP content: text, images when the agent takes them, files embedded or linked. */
  private toContent(parts: PromptPart[]): ContentBlock[] {
    const caps = this.host.agentCaps().promptCapabilities;
    const image = caps?.image === true;
    return parts.map((p): ContentBlock => {
      if (p.type === "text") return { type: "text", text: p.text };
      const d = parseDataUrl(p.url);
      if (d && image && p.mime.startsWith("image/")) return { type: "image", mimeType: d.mime, data: d.base64 };
      // A file the user attached, embedded when the agent takes embedded context (its text for a
      // text file), a link otherwise.
      if (d && caps?.embeddedContext === true) {
        const uri = `attachment:///${encodeURIComponent(p.filename ?? "file")}`;
        const mimeType = d.mime;
        return isTextMime(mimeType)
          ? { type: "resource", resource: { uri, mimeType, text: Buffer.from(d.base64, "base64").toString("utf8") } }
          : { type: "resource", resource: { uri, mimeType, blob: d.base64 } };
      }
      return { type: "resource_link", uri: p.url, name: p.filename ?? "file", mimeType: p.mime };
    });
  }

  async prompt(rt: Runtime, body: PromptBody): Promise<void> {
    if (lifecycle.queueWhileBusy(rt, body)) return;
    // The hub materializes the turn (and the transcript kept from it) even when no browser watches.
    await this.host.sink.openSession?.(this.host.backendId, rt.id);
    const c = await this.host.sessions.attach(rt);
    this.start(rt, c, body);
  }

  private start(rt: Runtime, c: Conn, body: PromptBody) {
    const now = Date.now();
    const t = beginTurn(rt.norm, body.parts, now);
    const firstText = body.parts.find((p): p is Extract<PromptPart, { type: "text" }> => p.type === "text")?.text;
    const events = [...t.events, lifecycle.statusEvent("busy")];
    if (firstText && rt.norm.session.title === DEFAULT_TITLE) {
      // a provisional title until the agent names the session
      events.push(
        ...applyUpdate(
          rt.norm,
          { sessionUpdate: "session_info_update", title: firstText.replace(/\s+/g, " ").trim().slice(0, 80) },
          now,
        ),
      );
    }
    const info: MessageInfo = {
      id: t.assistantId,
      sessionId: rt.id,
      role: "assistant",
      createdAt: now + 1,
      ...(rt.norm.session.model ? { model: rt.norm.session.model } : {}),
    };
    const turn = lifecycle.openTurn<Turn>(rt, { info, gen: c.gen, done: false });
    this.host.emit(rt, events);
    this.host.sessions.persist(rt);
    const v2 = c.conn.version === 2;
    // v2: the turn is the agent's foreground work, which this prompt starts; its idle `state_update` ends it
    if (v2) rt.v2.foreground = "running";
    c.conn
      .prompt(rt.agentId, this.toContent(body.parts))
      .then(async (result) => {
        await drainIncoming();
        // v2 answers with an acknowledgement: the end comes as a state_update (v2Outcome)
        if (!v2) this.finish(rt, turn, result);
      })
      .catch(async (err: unknown) => {
        if (v2 && err instanceof Error && err.name === "ZodError" && !this.host.proc.hasExited(turn.gen)) {
          // the SDK's v2 client could not read the result (v1's `{stopReason}` has no `messageId`)
          await drainIncoming();
          this.fail(rt, turn, {
            name: "ProtocolError",
            message: protocolErrorMessage(
              this.host.label,
              "it answered the prompt with a result in ACP v1's shape, not v2's acknowledgement",
            ),
          });
          return;
        }
        // A dying agent closes the connection before its exit is reported: wait for the exit so the
        // turn says what happened to the process.
        if (rpcCode(err) === undefined) await this.host.proc.waitExit(turn.gen, 3000);
        // As on success: the updates the agent sent before its error are applied before the turn
        // fails, so a late chunk does not write the message again without its error.
        await drainIncoming();
        if (turn.done) return;
        const mapped = this.host.mapError(err, "run the prompt");
        this.fail(rt, turn, {
          name: mapped.code === "backend_down" ? "AgentUnavailable" : "AgentError",
          message: mapped.message,
        });
      });
  }

  /** Closes the turn (false: it was over already); its permission requests are cancelled. */
  private end(rt: Runtime, turn: Turn): boolean {
    if (!lifecycle.closeTurn(rt, turn)) return false;
    this.host.interrupts.expire((p) => p.sessionId === rt.id, CANCELLED);
    return true;
  }

  private finish(rt: Runtime, turn: Turn, result: unknown) {
    if (!this.end(rt, turn)) return;
    this.host.emit(rt, [
      ...endTurn(rt.norm, turn.info.id, turn.info, result, Date.now()),
      lifecycle.statusEvent("idle"),
    ]);
    this.host.sessions.persist(rt);
    this.next(rt);
  }

  /** The running turn failed: its message says why, the session is idle, the next queued prompt runs. */
  fail(rt: Runtime, turn: Turn, error: { name: string; message: string }): void {
    if (!this.end(rt, turn)) return;
    this.host.emit(rt, [
      ...failTurn(rt.norm, turn.info.id, turn.info, error, Date.now()),
      { type: "error", message: error.message, code: error.name },
      lifecycle.statusEvent("idle"),
    ]);
    this.host.sessions.persist(rt);
    this.next(rt);
  }

  /** What a v2 update meant for the running turn: idle ends it, an agent error or a protocol error fails it. */
  v2Outcome(rt: Runtime, o: V2Applied): void {
    const turn = lifecycle.runningTurn(rt);
    if (o.protocolError) {
      const message = protocolErrorMessage(this.host.label, o.protocolError);
      if (turn) this.fail(rt, turn, { name: "ProtocolError", message });
      else this.host.emit(rt, [{ type: "error", message, code: "ProtocolError" }]);
      return;
    }
    if (!turn) return;
    if (o.failed) this.fail(rt, turn, { name: "AgentError", message: `${this.host.label}: ${o.failed}` });
    else if (o.ended) this.finish(rt, turn, o.ended);
  }

  /**
   * v2: the agent answered the prompt with v1's `stopReason`, so it may think the turn over without
   * ever sending v2's `state_update`: the turn fails unless its idle state arrives shortly.
   */
  v1PromptResult(rt: Runtime): void {
    const turn = lifecycle.runningTurn(rt);
    if (!turn) return;
    const t = setTimeout(() => {
      if (lifecycle.runningTurn(rt) !== turn) return;
      this.fail(rt, turn, {
        name: "ProtocolError",
        message: protocolErrorMessage(
          this.host.label,
          "it ended the prompt with ACP v1's stopReason and sent no state_update",
        ),
      });
    }, V1_RESULT_GRACE_MS);
    t.unref?.();
  }

  private next(rt: Runtime) {
    const body = lifecycle.takeNext(rt);
    if (!body) return;
    this.host.sessions
      .attach(rt)
      .then((c) => this.start(rt, c, body))
      .catch((err: unknown) => {
        this.host.emit(rt, [{ type: "error", message: this.host.mapError(err, "run the queued prompt").message }]);
        lifecycle.dropQueue(rt);
      });
  }

  async abort(rt: Runtime): Promise<void> {
    lifecycle.dropQueue(rt);
    const turn = lifecycle.runningTurn(rt);
    if (!turn) return;
    // ACP: after session/cancel, pending permission requests are answered "cancelled".
    this.host.interrupts.expire((p) => p.sessionId === rt.id, CANCELLED);
    const c = this.host.proc.current;
    if (c && c.gen === turn.gen) await c.conn.cancel(rt.agentId).catch(() => undefined);
    // An agent that ignores the cancel must not leave the session busy forever.
    lifecycle.armStopGrace(turn, this.host.cancelGraceMs ?? lifecycle.STOP_GRACE_MS, () =>
      this.finish(rt, turn, { stopReason: "cancelled" }),
    );
  }

  /**
   * The process of `gen` died: its permission requests are cancelled and its running turns fail.
   * Returns the sessions whose turn it ended, with the turn's message (for the restart notice).
   */
  processDied(gen: number, turnError: string): { sessionId: string; messageId: string }[] {
    this.host.interrupts.expire((p) => p.epoch === gen, CANCELLED);
    const ended: { sessionId: string; messageId: string }[] = [];
    for (const rt of this.host.sessions.all()) {
      const turn = lifecycle.runningTurn(rt);
      if (turn && turn.gen === gen) {
        this.fail(rt, turn, { name: "AgentExited", message: turnError });
        ended.push({ sessionId: rt.id, messageId: turn.info.id });
      }
    }
    return ended;
  }
}
