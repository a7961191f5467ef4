import "server-only";
import { randomBytes } from "node:crypto";
import type { PromptBody, PromptPart } from "@/lib/api";
import { parseDataUrl } from "@/lib/attachments";
import type { TimelineEvent, Usage } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import type { Obj } from "../shared/values";
import type { EventSink } from "../types";
import { CONTEXT_MAX_CHARS, earlierConversation } from "./earlier-turns";
import type { ZotModels } from "./models";
import { applyZotEvent, beginCompaction, beginTurn, endTurn, turnNotice } from "./normalize";
import { ZotStartError } from "./process";
import * as lifecycle from "../shared/turn-lifecycle";
import { DEFAULT_TITLE, type Live, type Runtime, type Turn, type ZotSessions } from "./sessions";

export const zeroUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });
export const newId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${randomBytes(6).toString("hex")}`;

/** What the turns need of the adapter: its sessions, and its processes. */
export interface ZotTurnsHost {
  backendId: string;
  sink: EventSink;
  sessions: ZotSessions;
  models: ZotModels;
  /** The session's running process, or a new one. */
  ensureProcess(rt: Runtime): Promise<Live>;
  /** The turn is over and nothing is queued: the process closes after a while idle. */
  closeWhenIdle(rt: Runtime): void;
  /** The session's process goes (a wedged one after an abort); the next prompt starts another. */
  retire(rt: Runtime, live: Live): void;
  /** How long zot may take to end a turn after `abort` (default 10 s). */
  abortGraceMs?: number | undefined;
  /** Bound of the earlier conversation given to a new process (default `CONTEXT_MAX_CHARS`). */
  contextMaxChars?: number | undefined;
}

/** The prompt as zot's `prompt` takes it: the text parts, and images as base64. Other files: 400. */
export function toZotPrompt(parts: PromptPart[]): { message: string; images: { mime_type: string; data: string }[] } {
  const texts: string[] = [];
  const images: { mime_type: string; data: string }[] = [];
  for (const p of parts) {
    if (p.type === "text") {
      texts.push(p.text);
      continue;
    }
    const d = parseDataUrl(p.url);
    if (!d?.mime.startsWith("image/"))
      throw ApiError.badRequest(`zot takes text and images only; ${p.filename ?? p.mime} cannot be attached`);
    images.push({ mime_type: d.mime, data: d.base64 });
  }
  return { message: texts.join("\n\n"), images };
}

/**
 * zot's turns — requests out (`prompt`, `set_model`, `abort`, `compact`), events in (`applyZotEvent`
 * until `done`): one turn per session at a time, later prompts queued; a session without a process
 * gets one, given the earlier conversation ahead of its first prompt.
 */
export class ZotTurns {
  constructor(private host: ZotTurnsHost) {}

  private get grace(): number {
    return this.host.abortGraceMs ?? lifecycle.STOP_GRACE_MS;
  }

  emit(rt: Runtime, events: TimelineEvent[]): void {
    this.host.sessions.publish(rt, events);
  }

  /** A frame of a session's process. */
  onEvent(rt: Runtime, live: Live, frame: Obj): void {
    const turn = rt.turn;
    // Frames of no running turn of this process: a compaction's late `done`, or one after a local end.
    if (!turn || turn.done || !turn.started || turn.live !== live) return;
    if (frame.type === "done") {
      this.finish(rt, turn);
      return;
    }
    const events = applyZotEvent(turn.z, frame, Date.now());
    if (frame.type === "usage") {
      const u = events.find((e): e is Extract<TimelineEvent, { type: "usage.updated" }> => e.type === "usage.updated");
      if (u) rt.session = { ...rt.session, usage: u.usage };
    }
    this.emit(rt, events);
    // The old build ends a compaction without `done`: `compact_done` ends it. An `error` is not the end
    // (the summary may follow); an old build that failed sends nothing more, so the turn ends after a grace.
    if (turn.kind === "compact" && frame.type === "compact_done") this.finish(rt, turn);
    else if (turn.kind === "compact" && frame.type === "error")
      lifecycle.armStopGrace(turn, this.grace, () => this.finish(rt, turn));
  }

  async prompt(rt: Runtime, body: PromptBody): Promise<void> {
    toZotPrompt(body.parts);
    if (body.model) this.host.models.checkProvider(body.model);
    if (lifecycle.queueWhileBusy(rt, body)) return;
    // The hub materializes the turn (and the transcript kept from it) even when no browser watches.
    await this.host.sink.openSession?.(this.host.backendId, rt.id);
    void this.run(rt, body);
  }

  private async run(rt: Runtime, body: PromptBody) {
    const { sessions } = this.host;
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    const now = Date.now();
    const zotPrompt = toZotPrompt(body.parts);
    const model = body.model ?? rt.session.model;
    // A new process knows nothing: it is given the conversation so far (before this prompt).
    const fresh = !rt.live;
    const earlier = fresh
      ? earlierConversation(sessions.messagesOf(rt), this.host.contextMaxChars ?? CONTEXT_MAX_CHARS)
      : undefined;
    const notice = earlier
      ? {
          level: "info" as const,
          text: `New zot process for this session: zot keeps no history, so Switchboard gave it the earlier conversation as context (${earlier.included === earlier.total ? `all ${earlier.total} messages` : `the newest ${earlier.included} of ${earlier.total} messages`}).`,
        }
      : undefined;
    const ids = { userId: newId("msg"), assistantId: newId("msg") };
    const contextWindow = this.host.models.contextWindow(model?.id);
    // The session's totals are what earlier processes used plus this process's running `cumulative`.
    const base = rt.live?.base ?? rt.session.usage ?? zeroUsage();
    const begin = beginTurn(rt.id, ids, body.parts, now, {
      ...(model ? { model } : {}),
      base,
      ...(contextWindow ? { contextWindow } : {}),
      ...(notice ? { notice } : {}),
    });
    const turn = lifecycle.openTurn<Turn>(rt, {
      z: begin.turn,
      kind: "prompt",
      started: false,
      done: false,
      aborted: false,
    });
    const firstText = body.parts.find((p) => p.type === "text")?.text;
    if (firstText && rt.session.title === DEFAULT_TITLE)
      rt.session = { ...rt.session, title: firstText.replace(/\s+/g, " ").trim().slice(0, 80) };
    rt.session = { ...rt.session, updatedAt: now, ...(model ? { model } : {}) };
    this.emit(rt, [
      ...begin.events,
      { type: "session.updated", session: sessions.sessionOf(rt) },
      lifecycle.statusEvent("busy"),
    ]);
    sessions.persist(rt);
    try {
      const live = await this.host.ensureProcess(rt);
      turn.live = live;
      if (turn.done) return;
      if (turn.aborted) return this.finish(rt, turn, { aborted: true });
      const conn = live.zp.connection;
      if (!conn) throw new ZotStartError("The zot process ended before the prompt could be sent.");
      if (model && model.id !== live.model) await this.switchModel(rt, turn, live, model.id);
      // zot cannot load a transcript (its RPC mode keeps no sessions): a new process gets the earlier
      // conversation ahead of the prompt, over stdin, and keeps it in its own transcript from then on.
      const message = earlier ? `${earlier.text}\n\n# The new message\n\n${zotPrompt.message}` : zotPrompt.message;
      const r = await conn.request("prompt", { ...zotPrompt, message }, (res) => {
        if (res.success) turn.started = true;
      });
      if (!r.success && !turn.done)
        this.finish(rt, turn, {
          failure: { name: "ZotError", message: `zot refused the prompt: ${r.error ?? "no reason given"}` },
        });
    } catch (err) {
      if (turn.done) return;
      const message = describeError(err);
      this.finish(rt, turn, {
        failure: { name: err instanceof ZotStartError ? "ZotStartFailed" : "AgentError", message },
      });
    }
  }

  /** `set_model` before a prompt that asks for another model; a refusal is a notice, the prompt goes on. */
  private async switchModel(rt: Runtime, turn: Turn, live: Live, model: string) {
    const r = await live.zp.connection!.request("set_model", { model });
    if (r.success) {
      live.model = model;
      return;
    }
    this.emit(
      rt,
      turnNotice(
        turn.z,
        "warn",
        `zot did not switch to ${model}: ${r.error ?? "no reason given"}. The prompt runs with ${live.model ?? "its current model"}.`,
      ),
    );
    const current = liveModel(live);
    if (current) {
      rt.session = { ...rt.session, model: current };
      turn.z.info = { ...turn.z.info, model: current };
      this.emit(rt, [
        { type: "message.updated", message: turn.z.info },
        { type: "session.updated", session: this.host.sessions.sessionOf(rt) },
      ]);
    }
  }

  /** The turn is over: its message completed, the session idle and kept, the next queued prompt started. */
  finish(rt: Runtime, turn: Turn, opts: { aborted?: boolean; failure?: { name: string; message: string } } = {}): void {
    if (!lifecycle.closeTurn(rt, turn)) return;
    const now = Date.now();
    const events = endTurn(turn.z, now, {
      aborted: opts.aborted ?? turn.aborted,
      ...(opts.failure ? { failure: opts.failure } : {}),
    });
    if (opts.failure) events.push({ type: "error", message: opts.failure.message, code: opts.failure.name });
    rt.session = { ...rt.session, updatedAt: now };
    events.push({ type: "session.updated", session: this.host.sessions.sessionOf(rt) }, lifecycle.statusEvent("idle"));
    this.emit(rt, events);
    this.host.sessions.persist(rt);
    const next = lifecycle.takeNext(rt);
    if (next) void this.run(rt, next);
    else if (rt.live) this.host.closeWhenIdle(rt);
  }

  abort(rt: Runtime): void {
    lifecycle.dropQueue(rt);
    const turn = lifecycle.runningTurn(rt);
    if (!turn) return;
    turn.aborted = true;
    const conn = turn.live?.zp.connection;
    // Not sent yet (the process is starting): `run` ends it as stopped.
    if (!conn) return;
    void conn.request("abort").catch(() => undefined);
    // zot that does not end the turn must not leave the session busy: end it here, and the wedged
    // process goes (the next prompt starts another, given the conversation).
    lifecycle.armStopGrace(turn, this.grace, () => {
      if (turn.done) return;
      const live = turn.live;
      this.finish(rt, turn, { aborted: true });
      if (live && rt.live === live) this.host.retire(rt, live);
    });
  }

  /**
   * `compact`: zot summarises its in-memory transcript. A session whose process is gone has nothing
   * in zot to compact (its next process gets the bounded context instead): 409.
   */
  async compact(rt: Runtime): Promise<void> {
    if (lifecycle.isBusy(rt)) throw ApiError.conflict("Wait for the running turn to end before compacting");
    const live = rt.live;
    const conn = live?.zp.connection;
    if (!live || !conn || conn.closed) {
      throw ApiError.conflict(
        "zot holds no conversation for this session right now (its process has ended); the next prompt gives a new process the earlier conversation, compact after that",
      );
    }
    if (rt.idleTimer) clearTimeout(rt.idleTimer);
    await this.host.sink.openSession?.(this.host.backendId, rt.id);
    const model = liveModel(live);
    const begin = beginCompaction(rt.id, { markerId: newId("msg"), summaryId: newId("msg") }, Date.now(), {
      ...(model ? { model } : {}),
      base: live.base,
    });
    const turn = lifecycle.openTurn<Turn>(rt, {
      z: begin.turn,
      kind: "compact",
      live,
      started: false,
      done: false,
      aborted: false,
    });
    this.emit(rt, [...begin.events, lifecycle.statusEvent("busy")]);
    try {
      const r = await conn.request("compact", {}, (res) => {
        if (res.success) turn.started = true;
      });
      if (!r.success)
        this.finish(rt, turn, {
          failure: { name: "ZotError", message: `zot refused to compact: ${r.error ?? "no reason given"}` },
        });
    } catch (err) {
      this.finish(rt, turn, { failure: { name: "AgentError", message: describeError(err) } });
    }
  }
}

/** The model a process runs now, with its provider. */
function liveModel(live: Live) {
  return live.model ? { ...(live.hello.provider ? { provider: live.hello.provider } : {}), id: live.model } : undefined;
}
