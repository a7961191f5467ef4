import "server-only";
import { randomUUID } from "node:crypto";
import type { SendMessageRequest } from "@a2a-js/sdk";
import type { PromptBody, PromptPart } from "@/lib/api";
import type { TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { InterruptBook } from "../shared/interrupts";
import type { EventSink } from "../types";
import { isAuthError, isTaskNotFound, mapA2aError, rpcFailure, type A2aConnection } from "./client";
import {
  applyFrame,
  beginTurn,
  endTurn,
  failTurn,
  toInterrupt,
  turnNotice,
  type FrameResult,
  type TurnEnd,
} from "./normalize";
import * as lifecycle from "../shared/turn-lifecycle";
import { DEFAULT_TITLE, type A2aSessions, type RunningTurn, type Runtime } from "./sessions";
import { sendRequest } from "./send-request";
import { addUsage } from "./usage";

/** How long the agent may take to confirm a cancel before the turn is ended here. */
/** Resubscribe attempts after a dropped stream, before the task counts as lost. */
const RECOVER_ATTEMPTS = 10;
/** A `message/send`-only agent's task is polled this often, this long at most. */
const POLL_MS = 700;
const POLL_LIMIT_MS = 30 * 60_000;
/** A lost opencode-a2a turn is followed through the history until it is quiet this many polls in a row. */
const WATCH_MS = 1_500;
const WATCH_QUIET = 6;

/** What an answer to an `auth-required` ask is shown (and kept, exported, shared) as. */
export const SENSITIVE_MASK = "•••••••• (a sensitive answer, sent to the agent only)";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface TurnContext {
  backendId: string;
  label: string;
  sink: EventSink;
  sessions: A2aSessions;
  interrupts: InterruptBook<void>;
  /** The connection, waiting for it while the agent is (re)connecting (throws when it does not come). */
  connection(): Promise<A2aConnection>;
  current(): A2aConnection | undefined;
  emit(rt: Runtime, events: TimelineEvent[]): void;
  /** The agent refused the token: the backend says so. */
  authFailed(): void;
  /** The agent could not be reached: the backend reconnects. */
  unreachable(err: unknown): void;
  /** opencode-a2a: reloads the session from the agent's history and reconciles the hub with it. */
  resync(rt: Runtime): Promise<void>;
  /** opencode-a2a: re-reads the pending permissions and questions. */
  refreshInterrupts(): Promise<void>;
  /** opencode-a2a: interrupt id by request id, for `phase: resolved`. */
  interruptOf(requestId: string): string | undefined;
  rememberRequest(requestId: string, interruptId: string): void;
  stopped(): boolean;
}

/**
 * Turns of A2A sessions: a prompt is a message on `message/stream` (or `message/send` with
 * `tasks/get` polling for an agent that does not stream); an answer to a paused task is a message
 * on the same task; Stop is `tasks/cancel`; a dropped stream is followed with `tasks/resubscribe`
 * and `tasks/get`, and a task the agent no longer runs ends the turn as lost (opencode-a2a: after
 * following it through the history, with pending interrupts recovered).
 */
export class A2aTurns {
  constructor(private ctx: TurnContext) {}

  /**
   * Starts a turn (or answers the paused task with `body`). A `sensitive` answer (to an
   * `auth-required` ask) goes to the agent as typed but is shown, kept and exported only masked.
   */
  async start(rt: Runtime, body: PromptBody, opts: { sensitive?: boolean } = {}): Promise<void> {
    if (lifecycle.queueWhileBusy(rt, body)) return;
    const c = await this.ctx.connection();
    const opencode = rt.norm.profile === "opencode";
    if (opencode && body.model && !body.model.provider) throw ApiError.badRequest("Pick a model with its provider");
    await this.ctx.sink.openSession?.(this.ctx.backendId, rt.id);
    const paused = rt.paused;
    if (paused) {
      rt.paused = undefined;
      this.ctx.interrupts.settle(paused.interruptId, "answered", undefined);
    }
    const userMessageId = `u_${randomUUID()}`;
    const now = Date.now();
    const a2aParts = opts.sensitive ? body.parts : undefined;
    const shown: PromptPart[] = opts.sensitive ? [{ type: "text", text: SENSITIVE_MASK }] : body.parts;
    const events: TimelineEvent[] = beginTurn(rt.norm, {
      userMessageId,
      assistantId: `a_${randomUUID()}`,
      parts: shown,
      now,
      ...(body.model ? { model: body.model } : {}),
      ...(paused ? { taskId: paused.taskId } : {}),
    });
    const firstText = shown.find((p): p is Extract<PromptPart, { type: "text" }> => p.type === "text")?.text;
    if (!paused && rt.session.title === DEFAULT_TITLE && !rt.titleLocked && firstText) {
      rt.session = { ...rt.session, title: firstText.replace(/\s+/g, " ").trim().slice(0, 80), updatedAt: now };
      events.push({ type: "session.updated", session: this.ctx.sessions.sessionOf(rt) });
    }
    const turn = lifecycle.openTurn<RunningTurn>(rt, {
      ac: new AbortController(),
      done: false,
      stopping: false,
      recovered: false,
      ...(paused ? { taskId: paused.taskId } : {}),
    });
    rt.session = { ...rt.session, updatedAt: now };
    this.ctx.emit(rt, [...events, lifecycle.statusEvent("busy")]);
    const params = sendRequest(body, a2aParts, {
      opencode,
      sessionId: rt.id,
      ...(rt.ocSession ? { ocSession: rt.ocSession } : {}),
      ...(rt.contextId ? { contextId: rt.contextId } : {}),
      ...(paused ? { taskId: paused.taskId } : {}),
    });
    void this.run(rt, turn, c, params);
  }

  private async run(rt: Runtime, turn: RunningTurn, c: A2aConnection, params: SendMessageRequest): Promise<void> {
    try {
      if (c.streaming) {
        if (await this.consume(rt, turn, c.stream(params, turn.ac.signal))) return;
      } else {
        // What `SendMessage` returns at once is a snapshot too (an answered task may still say
        // `input-required`): polling says where the task is.
        const res = await c.send(params, turn.ac.signal);
        if (await this.frame(rt, turn, res, false)) return;
        return await this.poll(rt, turn, c);
      }
    } catch (err) {
      if (turn.done) return;
      if (turn.ac.signal.aborted && turn.stopping) return;
      if (isAuthError(err)) {
        this.ctx.authFailed();
        return this.fail(rt, turn, {
          name: "AuthRequired",
          message: mapA2aError(err, "run the prompt", this.ctx.label).message,
        });
      }
      // The agent refused the message (a JSON-RPC error before the task began): say why.
      if (rpcFailure(err) && !turn.taskId)
        return this.fail(rt, turn, {
          name: rpcFailure(err)!.type ?? "AgentError",
          message: mapA2aError(err, "run the prompt", this.ctx.label).message,
        });
      log.warn("A2A stream dropped; following the task", {
        backend: this.ctx.backendId,
        task: turn.taskId,
        error: describeError(err),
      });
      if (!rpcFailure(err)) this.ctx.unreachable(err);
    }
    if (!turn.done) await this.recover(rt, turn);
  }

  /** Applies a stream; true when the turn ended (or paused). */
  private async consume(
    rt: Runtime,
    turn: RunningTurn,
    stream: AsyncIterable<unknown>,
    seen?: { frames: number },
  ): Promise<boolean> {
    // A Task in a stream is a snapshot (a resumed task's first frame still says `input-required`):
    // only a status update — terminal, interrupted or final — ends the turn, or the stream closing.
    for await (const ev of stream) {
      if (turn.done) return true;
      if (seen) seen.frames++;
      if (await this.frame(rt, turn, ev, false)) return true;
    }
    return turn.done;
  }

  /** One frame of the turn's task; true when it ended the turn. A Task ends it only when `snapshotEnds` (polling). */
  private async frame(rt: Runtime, turn: RunningTurn, ev: unknown, snapshotEnds = true): Promise<boolean> {
    let r: FrameResult;
    try {
      r = applyFrame(rt.norm, ev, Date.now(), { snapshotEnds });
    } catch (err) {
      log.warn("skipped an A2A frame that could not be applied", {
        backend: this.ctx.backendId,
        error: describeError(err),
      });
      return false;
    }
    if (r.taskId) turn.taskId = r.taskId;
    if (r.contextId && rt.norm.profile === "generic") this.ctx.sessions.bind(rt, r.contextId);
    if (r.binding) this.applyBinding(rt, r.binding);
    this.ctx.emit(rt, r.events);
    for (const ask of r.asked) this.raise(rt, ask);
    for (const res of r.resolved) {
      const id = this.ctx.interruptOf(res.requestId);
      if (id) this.ctx.interrupts.settle(id, res.resolution, undefined);
    }
    if (!r.end) return false;
    await this.finish(rt, turn, r.end);
    return true;
  }

  private applyBinding(rt: Runtime, b: { sessionId: string; title?: string }) {
    this.ctx.sessions.bind(rt, b.sessionId);
    if (b.title && !rt.titleLocked && b.title !== rt.session.title) {
      rt.session = { ...rt.session, title: b.title, updatedAt: Date.now() };
      this.ctx.emit(rt, [{ type: "session.updated", session: this.ctx.sessions.sessionOf(rt) }]);
    }
  }

  private raise(rt: Runtime, ask: FrameResult["asked"][number]) {
    const id = (ask.kind === "input" ? undefined : this.ctx.interruptOf(ask.requestId)) ?? this.ctx.interrupts.newId();
    const interrupt = toInterrupt(rt.norm, ask, id, Date.now());
    const key = ask.kind === "input" ? `input:${ask.taskId}` : ask.requestId;
    const { interrupt: raised } = this.ctx.interrupts.raise({
      sessionId: rt.id,
      interrupt,
      key,
      epoch: 0,
      respond: () => undefined,
    });
    if (ask.kind === "input") rt.paused = { taskId: ask.taskId, interruptId: raised.id };
    else this.ctx.rememberRequest(ask.requestId, raised.id);
  }

  /** The task ended (or paused): the messages say how, and the session is idle. */
  private async finish(rt: Runtime, turn: RunningTurn, end: TurnEnd): Promise<void> {
    if (!lifecycle.closeTurn(rt, turn)) return;
    turn.ac.abort();
    const now = Date.now();
    const events = endTurn(rt.norm, end, now);
    const usage = rt.norm.turn?.usage;
    if (usage) {
      rt.usage = addUsage(rt.usage, usage);
      events.push({ type: "usage.updated", usage: rt.usage });
    }
    this.ctx.emit(rt, events);
    if (end.state !== "input-required" && end.state !== "auth-required") {
      // The task is over: nothing it asked is pending any more.
      this.ctx.interrupts.expire((p) => p.sessionId === rt.id && p.interrupt.kind !== "input", undefined, "cancelled");
    }
    if (rt.norm.profile === "opencode" && rt.ocSession) {
      // The agent's history has the messages under OpenCode's ids (and the text a dropped stream missed).
      await this.ctx.resync(rt).catch((err: unknown) =>
        log.warn("could not read the history after a turn", {
          backend: this.ctx.backendId,
          error: describeError(err),
        }),
      );
    }
    this.idle(rt, turn);
  }

  private idle(rt: Runtime, turn: RunningTurn) {
    lifecycle.closeTurn(rt, turn);
    // A paused task (input-required) waits for the user's answer: the session stays busy, shown as waiting.
    this.ctx.emit(rt, [lifecycle.statusEvent(lifecycle.statusOf(rt, rt.paused !== undefined))]);
    this.ctx.sessions.persist(rt);
    const next = lifecycle.takeNext(rt);
    if (next)
      this.start(rt, next).catch((err: unknown) =>
        this.ctx.emit(rt, [
          { type: "error", message: mapA2aError(err, "run the queued prompt", this.ctx.label).message },
        ]),
      );
  }

  private fail(rt: Runtime, turn: RunningTurn, error: { name: string; message: string }) {
    if (!lifecycle.closeTurn(rt, turn)) return;
    turn.ac.abort();
    this.ctx.emit(rt, failTurn(rt.norm, error, Date.now()));
    this.ctx.interrupts.expire((p) => p.sessionId === rt.id, undefined, "cancelled");
    if (rt.paused) rt.paused = undefined;
    lifecycle.dropQueue(rt);
    this.idle(rt, turn);
  }

  /** `message/send` without streaming: the task is polled until it ends or pauses. */
  private async poll(rt: Runtime, turn: RunningTurn, c: A2aConnection): Promise<void> {
    const until = Date.now() + POLL_LIMIT_MS;
    let failures = 0;
    while (!turn.done && !this.ctx.stopped() && Date.now() < until) {
      await sleep(POLL_MS);
      if (!turn.taskId || turn.done) break;
      try {
        if (await this.frame(rt, turn, await c.getTask(turn.taskId))) return;
        failures = 0;
      } catch (err) {
        if (isTaskNotFound(err) || ++failures > 20) break;
      }
    }
    if (!turn.done) this.lost(rt, turn);
  }

  /**
   * The stream dropped (or ended before the task did): `tasks/resubscribe` while the agent has the
   * task running; `tasks/get` for where it is. A task the agent forgot, or has but no longer runs
   * (a stream that ends at once, again), is lost.
   */
  private async recover(rt: Runtime, turn: RunningTurn): Promise<void> {
    turn.recovered = true;
    let stale = 0;
    // A stream that ended at an opencode-a2a interrupt (SDK servers close the stream on
    // `input-required`) is followed again at once: the task goes on when the interrupt is answered.
    let atOnce = rt.norm.turn?.lastState === "input-required";
    for (let attempt = 0; attempt < RECOVER_ATTEMPTS && !turn.done && !this.ctx.stopped(); attempt++) {
      if (!atOnce) await sleep(Math.min(4_000, 300 * 2 ** attempt));
      atOnce = false;
      if (turn.done) return;
      if (!turn.taskId) break;
      const c = this.ctx.current();
      if (!c) continue;
      turn.ac = new AbortController();
      try {
        if (c.streaming) {
          const seen = { frames: 0 };
          if (await this.consume(rt, turn, c.resubscribe(turn.taskId, turn.ac.signal), seen)) return;
          if (seen.frames > 1) {
            // It went on (past the snapshot): not stale; follow it again at once.
            stale = 0;
            attempt = -1;
            atOnce = rt.norm.turn?.lastState === "input-required";
            continue;
          }
          stale++;
        }
        if (await this.frame(rt, turn, await c.getTask(turn.taskId))) return;
        if (!c.streaming) return await this.poll(rt, turn, c);
        if (stale >= 2) break;
      } catch (err) {
        if (turn.done) return;
        if (isTaskNotFound(err)) break;
        if (isAuthError(err)) {
          this.ctx.authFailed();
          return this.fail(rt, turn, {
            name: "AuthRequired",
            message: mapA2aError(err, "follow the task", this.ctx.label).message,
          });
        }
        log.info("resubscribing to an A2A task failed; retrying", {
          backend: this.ctx.backendId,
          task: turn.taskId,
          error: describeError(err),
        });
      }
    }
    if (!turn.done) this.lost(rt, turn);
  }

  private lost(rt: Runtime, turn: RunningTurn) {
    if (rt.norm.profile === "opencode" && rt.ocSession) {
      void this.watch(
        rt,
        turn,
        `${this.ctx.label} lost this task (it restarted mid-turn): live updates stopped. What the agent's history holds is shown.`,
      );
      return;
    }
    this.fail(rt, turn, {
      name: "TaskLost",
      message: `${this.ctx.label} no longer runs this task (it may have restarted); its answer was lost. Send the prompt again to go on.`,
    });
  }

  /**
   * opencode-a2a lost the task (it restarted) while OpenCode may still run the turn: the session is
   * followed through its history, with its pending permissions and questions recovered (and
   * answerable), until nothing changes for a while; then the turn ends, saying its stream was lost.
   */
  private async watch(rt: Runtime, turn: RunningTurn, lostMessage?: string) {
    rt.watching = true;
    let quiet = 0;
    let last = "";
    while (quiet < WATCH_QUIET && !turn.done && !this.ctx.stopped()) {
      await sleep(WATCH_MS);
      try {
        await this.ctx.refreshInterrupts();
        await this.ctx.resync(rt);
        const sig = JSON.stringify(
          this.ctx.sessions
            .messagesOf(rt)
            .map((m) => [m.id, m.blocks.map((b) => ("text" in b ? b.text.length : b.kind === "tool" ? b.status : 0))]),
        );
        const waiting = this.ctx.interrupts.list(rt.id).length > 0;
        if (sig === last && !waiting) quiet++;
        else quiet = 0;
        last = sig;
      } catch {
        quiet++;
      }
    }
    rt.watching = false;
    if (!lifecycle.closeTurn(rt, turn)) return;
    // The lost task is over for the console: the next prompt starts a new one (see beginTurn).
    if (rt.norm.turn) rt.norm.turn.done = true;
    if (!lostMessage) return this.idle(rt, turn);
    const lastAssistant = this.ctx.sessions
      .messagesOf(rt)
      .filter((m) => m.role === "assistant")
      .at(-1);
    const message = lostMessage;
    if (lastAssistant) {
      const { blocks: _blocks, ...info } = lastAssistant;
      this.ctx.emit(rt, [
        {
          type: "message.updated",
          message: { ...info, completedAt: info.completedAt ?? Date.now(), error: { name: "TaskLost", message } },
        },
      ]);
    } else {
      this.ctx.emit(rt, failTurn(rt.norm, { name: "TaskLost", message }, Date.now()));
    }
    this.ctx.interrupts.expire((p) => p.sessionId === rt.id, undefined, "cancelled");
    this.idle(rt, turn);
  }

  /**
   * opencode-a2a: an interrupt recovered after a reconnect was answered while no stream follows the
   * session — OpenCode goes on with the turn, which the console follows through the history.
   */
  async follow(rt: Runtime): Promise<void> {
    if (lifecycle.isBusy(rt) || rt.norm.profile !== "opencode" || !rt.ocSession) return;
    const turn = lifecycle.openTurn<RunningTurn>(rt, {
      ac: new AbortController(),
      done: false,
      stopping: false,
      recovered: true,
    });
    this.ctx.emit(rt, [lifecycle.statusEvent("busy")]);
    await this.watch(rt, turn);
  }

  /** Stop: `tasks/cancel`; the agent's `canceled` ends the turn (or, without it, the grace does). */
  async abort(rt: Runtime): Promise<void> {
    lifecycle.dropQueue(rt);
    const c = this.ctx.current();
    const paused = rt.paused;
    if (paused && !lifecycle.isBusy(rt)) {
      rt.paused = undefined;
      this.ctx.interrupts.settle(paused.interruptId, "cancelled", undefined);
      if (c) await c.cancelTask(paused.taskId).catch(() => undefined);
      const events = endTurn(rt.norm, { state: "canceled" }, Date.now());
      this.ctx.emit(rt, [...events, lifecycle.statusEvent("idle")]);
      this.ctx.sessions.persist(rt);
      return;
    }
    const turn = lifecycle.runningTurn(rt);
    if (!turn) return;
    turn.stopping = true;
    this.ctx.interrupts.expire((p) => p.sessionId === rt.id, undefined, "cancelled");
    const stopHere = () => {
      if (turn.done) return;
      turn.ac.abort();
      if (!turn.taskId && rt.watching) {
        // Only following the history: stop following.
        lifecycle.closeTurn(rt, turn);
        if (rt.norm.turn) rt.norm.turn.done = true;
        return this.idle(rt, turn);
      }
      void this.finish(rt, turn, { state: "canceled" });
    };
    if (!turn.taskId || !c) return stopHere();
    lifecycle.armStopGrace(turn, lifecycle.STOP_GRACE_MS, stopHere);
    try {
      const task = await c.cancelTask(turn.taskId);
      // Without a stream (message/send agents), the canceled task ends the turn.
      if (!c.streaming) await this.frame(rt, turn, task);
    } catch (err) {
      log.info("the agent did not cancel the task; stopping it here", {
        backend: this.ctx.backendId,
        task: turn.taskId,
        error: describeError(err),
      });
      stopHere();
    }
  }

  /** A notice on a session's last turn (an interrupt that expired …). */
  notice(rt: Runtime, text: string, level: "info" | "warn" = "warn") {
    this.ctx.emit(rt, turnNotice(rt.norm, `notice_${randomUUID()}`, level, text, Date.now()));
  }
}
