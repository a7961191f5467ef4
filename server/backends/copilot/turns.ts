import "server-only";
import type { PromptBody } from "@/lib/api";
import type { TimelineEvent } from "@/lib/model";
import { ApiError, describeError } from "../../errors";
import { log } from "../../log";
import type { InterruptBook } from "../shared/interrupts";
import { armStopGrace, clearStopGrace, STOP_GRACE_MS, statusEvent } from "../shared/turn-lifecycle";
import type { EventSink } from "../types";
import type { SlashCommands } from "./commands";
import type { CopilotAdapterOptions } from "./config";
import type { CopilotConnection } from "./connection";
import type { CopilotRewind } from "./rewind";
import { mapRpcError, parseResult, SendResult, SuccessResult } from "./rpc";
import type { Reply } from "./reply";
import type { Runtime } from "./runtime";
import type { CopilotSessions } from "./sessions";
import type { CopilotSettings } from "./settings";

/** What a turn's calls use of the rest of the adapter. */
export interface TurnParts {
  sessions: CopilotSessions;
  settings: CopilotSettings;
  commands: SlashCommands;
  rewind: CopilotRewind;
  interrupts: InterruptBook<Reply>;
}

/**
 * Turns: a prompt (or a slash command), its abort, compaction; and the turns a crash of the CLI
 * ended (the stdio shell gives them the notice when it is back).
 */
export class CopilotTurns {
  constructor(
    private backendId: string,
    private opts: CopilotAdapterOptions,
    private cli: CopilotConnection,
    private sink: EventSink,
    private parts: TurnParts,
    private publish: (sessionId: string, events: TimelineEvent[]) => void,
  ) {}

  async prompt(sessionId: string, body: PromptBody): Promise<void> {
    const rt = await this.parts.sessions.known(sessionId);
    if (body.parts.some((p) => p.type !== "text"))
      throw ApiError.badRequest(`${this.opts.label} takes text prompts here (no attachments)`);
    const text = body.parts.map((p) => (p.type === "text" ? p.text : "")).join("\n\n");
    // The hub materializes the turn even when no browser watches (the sidebar's status, the inbox).
    await this.sink.openSession?.(this.backendId, rt.id);
    const c = await this.parts.sessions.attach(rt);
    if (rt.revert) await this.parts.rewind.apply(rt);
    if (await this.parts.commands.isCommand(rt, c.conn, text)) return this.parts.commands.enqueue(rt, c.conn, text);
    if (body.model && body.model.id !== rt.settings.model) await this.parts.settings.switchModel(rt, body.model.id);
    const wasBusy = rt.tl.busy;
    if (!wasBusy) {
      rt.tl.busy = true;
      this.publish(rt.id, [statusEvent("busy")]);
    }
    try {
      // While a turn runs, Copilot queues the prompt itself ("enqueue").
      parseResult(
        SendResult,
        await c.conn.request("session.send", {
          sessionId: rt.id,
          prompt: text,
          ...(wasBusy ? { mode: "enqueue" } : {}),
        }),
        "session.send",
      );
    } catch (err) {
      if (!wasBusy) {
        rt.tl.busy = false;
        this.publish(rt.id, [statusEvent("idle")]);
      }
      throw mapRpcError(err, "send the prompt", this.opts.label);
    }
  }

  async abort(sessionId: string): Promise<void> {
    const rt = await this.parts.sessions.known(sessionId);
    if (!rt.tl.busy) return;
    const c = this.cli.current;
    if (c && rt.gen === c.gen)
      await c.conn
        .request("session.abort", { sessionId: rt.id })
        .catch((err: unknown) =>
          log.warn("session.abort failed", { backend: this.backendId, error: describeError(err) }),
        );
    // A CLI that ignores the abort must not leave the session busy forever.
    armStopGrace(rt, this.opts.abortGraceMs ?? STOP_GRACE_MS, () => {
      if (!rt.tl.busy) return;
      const now = Date.now();
      this.parts.interrupts.expire((p) => p.sessionId === rt.id, { kind: "cancel" });
      this.publish(rt.id, [
        ...rt.tl.apply({ id: `abort-${now}`, type: "abort", timestamp: now, data: {}, ephemeral: true }),
        ...rt.tl.apply({ id: `abort-idle-${now}`, type: "session.idle", timestamp: now, data: {}, ephemeral: true }),
      ]);
    });
  }

  async compact(sessionId: string): Promise<void> {
    const rt = await this.parts.sessions.known(sessionId);
    if (rt.tl.busy) throw ApiError.conflict("Wait for the running turn to end before compacting");
    const c = await this.parts.sessions.attach(rt);
    let res: SuccessResult;
    try {
      res = parseResult(
        SuccessResult,
        await c.conn.request("session.history.compact", { sessionId: rt.id }, { timeoutMs: 180_000 }),
        "session.history.compact",
      );
    } catch (err) {
      throw mapRpcError(err, "compact the conversation", this.opts.label);
    }
    if (!res.success)
      throw ApiError.upstream(
        `${this.opts.label} could not compact the conversation${res.error ? `: ${res.error}` : ""}`,
      );
  }

  /** `session.idle`: the turn ended, and an abort's grace with it. */
  idle(rt: Runtime) {
    clearStopGrace(rt);
  }

  /** The adapter stops: no abort's grace outlives it. */
  stop() {
    for (const rt of this.parts.sessions.all()) clearStopGrace(rt);
  }

  /** The CLI process of `gen` died: its requests are cancelled and its running turns fail. */
  exited(gen: number, turnError: string) {
    this.parts.interrupts.expire((p) => p.epoch === gen, { kind: "cancel" });
    for (const rt of this.parts.sessions.all()) {
      if (rt.gen !== gen) continue;
      rt.gen = undefined;
      if (!rt.tl.busy) continue;
      const events = rt.tl.apply({
        id: `exit-${gen}-${Date.now()}`,
        type: "session.error",
        timestamp: Date.now(),
        data: { errorType: "AgentExited", message: turnError },
        ephemeral: true,
      });
      const failed = events.find(
        (e): e is Extract<TimelineEvent, { type: "message.updated" }> =>
          e.type === "message.updated" && Boolean(e.message.error),
      );
      if (failed) this.cli.shell.noteCrash(rt.id, failed.message.id);
      else this.cli.shell.forgetCrash(rt.id);
      this.publish(rt.id, [
        ...events,
        ...rt.tl.apply({
          id: `exit-idle-${gen}`,
          type: "session.idle",
          timestamp: Date.now(),
          data: {},
          ephemeral: true,
        }),
      ]);
    }
  }
}
