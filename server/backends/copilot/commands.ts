import "server-only";
import type { TimelineEvent } from "@/lib/model";
import { describeError } from "../../errors";
import { log } from "../../log";
import { JsonRpcError, type JsonRpcPeer } from "../shared/json-rpc";
import { CommandInvocation, CommandList, CommandRequest, mapRpcError, parseResult } from "./rpc";
import type { Runtime } from "./runtime";

const commandId = () => `cmd_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

/**
 * The CLI hands a queued slash command to its client (`command.queued`) only when a client
 * declared interest in them (`session.eventLog.registerInterest`); without an answer its command
 * queue stalls. Best effort: an older CLI without the method queues nothing to us.
 */
export async function registerInterest(conn: JsonRpcPeer, sessionId: string, backendId: string) {
  await conn
    .request("session.eventLog.registerInterest", { sessionId, eventType: "command.queued" })
    .catch((err: unknown) =>
      log.warn("could not register interest in queued commands", { backend: backendId, error: describeError(err) }),
    );
}

/**
 * Slash commands (`/name args`, built in or a client's): a prompt that is one goes to the CLI's
 * command queue, and the console runs the queued commands the CLI hands to it.
 */
export class SlashCommands {
  constructor(
    private backendId: string,
    private label: string,
    private publish: (sessionId: string, events: TimelineEvent[]) => void,
  ) {}

  /** A prompt that is one of the session's slash commands (`/name args`, built in or a client's). */
  async isCommand(rt: Runtime, conn: JsonRpcPeer, text: string): Promise<boolean> {
    const m = /^\/([A-Za-z][\w-]*)(?:\s|$)/.exec(text.trim());
    if (!m) return false;
    if (!rt.commands) {
      try {
        const list = parseResult(
          CommandList,
          await conn.request("session.commands.list", { sessionId: rt.id }),
          "session.commands.list",
        );
        rt.commands = new Set(
          list.commands.flatMap((cmd) => [cmd.name, ...(cmd.aliases ?? [])].map((n) => n.toLowerCase())),
        );
      } catch (err) {
        log.warn("session.commands.list failed: the prompt goes to the model", {
          backend: this.backendId,
          error: describeError(err),
        });
        return false;
      }
    }
    return rt.commands.has(m[1]!.toLowerCase());
  }

  /** Shows the command as the user's message and hands it to the CLI's command queue (FIFO behind a running turn). */
  async enqueue(rt: Runtime, conn: JsonRpcPeer, text: string) {
    const now = Date.now();
    const id = commandId();
    this.publish(rt.id, [
      { type: "message.updated", message: { id, sessionId: rt.id, role: "user", createdAt: now } },
      { type: "block.updated", messageId: id, block: { id: `${id}:t`, kind: "text", text: text.trim() } },
    ]);
    try {
      await conn.request("session.commands.enqueue", { sessionId: rt.id, command: text.trim() });
    } catch (err) {
      this.reply(
        rt,
        `${id}:r`,
        [
          {
            kind: "notice",
            level: "error",
            text: `Copilot did not take ${text.trim().split(/\s/)[0]}: ${describeError(err)}`,
          },
        ],
        true,
      );
      throw mapRpcError(err, "queue the command", this.label);
    }
  }

  /** A command's output as an assistant message (a command runs no model turn). */
  private reply(
    rt: Runtime,
    id: string,
    blocks: ({ kind: "text"; text: string } | { kind: "notice"; level: "info" | "error"; text: string })[],
    failed = false,
  ) {
    const now = Date.now();
    this.publish(rt.id, [
      {
        type: "message.updated",
        message: {
          id,
          sessionId: rt.id,
          role: "assistant",
          createdAt: now,
          completedAt: now,
          ...(failed ? { error: { name: "CommandFailed", message: "The command failed" } } : {}),
        },
      },
      ...blocks.map((b, i) => ({ type: "block.updated" as const, messageId: id, block: { id: `${id}:${i}`, ...b } })),
    ]);
  }

  /**
   * `command.queued`: the CLI's turn has come for a queued slash command, and its client runs it
   * (`session.commands.invoke`), shows what it produced, and says whether it ran
   * (`session.commands.respondToQueuedCommand`), so the queue goes on either way.
   */
  async runQueued(rt: Runtime, conn: JsonRpcPeer, data: unknown) {
    const req = CommandRequest.safeParse(data);
    if (!req.success) return;
    const command = (req.data.command ?? "").trim();
    const m = /^\/?([^\s]+)\s*([\s\S]*)$/.exec(command);
    const id = `${commandId()}:r`;
    let handled = false;
    try {
      if (!m) throw new Error(`not a command: ${command}`);
      const res = parseResult(
        CommandInvocation,
        await conn.request(
          "session.commands.invoke",
          { sessionId: rt.id, name: m[1], ...(m[2] ? { input: m[2] } : {}) },
          { timeoutMs: 120_000 },
        ),
        "session.commands.invoke",
      );
      handled = true;
      if (res.kind === "agent-prompt" && res.prompt) {
        this.reply(rt, id, [
          {
            kind: "notice",
            level: "info",
            text: res.notice ?? `/${m[1]} asks the agent: ${res.displayPrompt ?? res.prompt}`,
          },
        ]);
        await conn.request("session.send", {
          sessionId: rt.id,
          prompt: res.prompt,
          ...(rt.tl.busy ? { mode: "enqueue" } : {}),
        });
      } else if (res.kind === "text" && res.text) this.reply(rt, id, [{ kind: "text", text: res.text }]);
      else this.reply(rt, id, [{ kind: "notice", level: "info", text: res.message ?? res.text ?? `Ran /${m[1]}` }]);
    } catch (err) {
      const reason = err instanceof JsonRpcError ? err.message : describeError(err);
      this.reply(
        rt,
        id,
        [
          {
            kind: "notice",
            level: "error",
            text: `${command || "The command"} failed: ${reason}`,
          },
        ],
        true,
      );
    }
    await conn
      .request("session.commands.respondToQueuedCommand", {
        sessionId: rt.id,
        requestId: req.data.requestId,
        result: { handled },
      })
      .catch((err: unknown) =>
        log.warn("respondToQueuedCommand failed", { backend: this.backendId, error: describeError(err) }),
      );
  }

  /**
   * `command.execute`: a command registered by a client; the console registers none, so one reaching
   * it is answered as unknown (never left pending).
   */
  async answerExecute(rt: Runtime, conn: JsonRpcPeer, data: unknown) {
    const req = CommandRequest.safeParse(data);
    if (!req.success) return;
    await conn
      .request("session.commands.handlePendingCommand", {
        sessionId: rt.id,
        requestId: req.data.requestId,
        error: `Switchboard has no command /${req.data.commandName ?? "?"}`,
      })
      .catch(() => undefined);
  }
}
