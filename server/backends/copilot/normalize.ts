/**
 * Copilot CLI headless events (`session.event` notifications, and the persisted events
 * `session.getMessages` returns) → canonical timeline events (lib/model.ts). Pure and defensive: no
 * I/O, no clock (times come from the events), one `CopilotTimeline` per session keeps what a
 * mapping needs across events. A malformed or unknown event yields nothing and never throws.
 *
 * Ids are taken from the events so a live session and one reloaded from history agree:
 * - a user message is its `user.message` event id (which is also its rewind point);
 * - an assistant message is one model call, `assistant.turn_start` … `assistant.turn_end`, with the
 *   turn_start event's id; its text block is `text:<messageId>`, its reasoning
 *   `<assistant id>:reasoning`, its tools `tool:<toolCallId>`;
 * - interrupts are `perm_<requestId>`, `ask_<requestId>`, `form_<requestId>`.
 *
 * Protocol notes: docs/backends/copilot.md; fixtures: ./fixtures (real transcripts of the CLI).
 */
import type { Block, Message, MessageError, MessageInfo, Session, TimelineEvent, Usage } from "@/lib/model";
import { applyAll, emptyState } from "@/lib/timeline/reducer";
import { arr, num, obj, str } from "../shared/values";
import { parseEvent, type CopilotEvent } from "./events";
import { interruptEvents } from "./interrupt-events";
import { ToolCalls } from "./tools";

/**
 * The per-session mapping. `apply` takes one event and returns the canonical events it means;
 * `session` is the session as the events describe it (title, model, directory).
 */
export class CopilotTimeline {
  session: Session;
  /** The user message of the running (or last) interaction. */
  private userId: string | undefined;
  /** The assistant message (model call) in progress. */
  private assistant: MessageInfo | undefined;
  /** The last assistant message of the interaction (for an abort or an error after its turn_end). */
  private lastAssistant: MessageInfo | undefined;
  private texts = new Map<string, { messageId: string; text: string }>();
  private reasoning = new Map<string, { messageId: string; block: Extract<Block, { kind: "reasoning" }> }>();
  private tools = new ToolCalls();
  private totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  private context: { tokens: number; window: number } | undefined;
  /** True between a user message and `session.idle`. */
  busy = false;

  constructor(session: Session) {
    this.session = session;
  }

  /** The canonical events of one Copilot event (none for events the timeline does not show). */
  apply(ev: CopilotEvent): TimelineEvent[] {
    try {
      // Subagents' own events (agentId) belong to their task, not to the root timeline.
      if (ev.agentId) return [];
      return this.map(ev);
    } catch {
      return [];
    }
  }

  private map(ev: CopilotEvent): TimelineEvent[] {
    const asked = interruptEvents(this.session.id, ev);
    if (asked) return asked;
    const d = ev.data;
    switch (ev.type) {
      case "session.start": {
        const ctx = obj(d.context);
        const model = str(d.selectedModel);
        const cwd = str(ctx.cwd);
        const created = Date.parse(str(d.startTime) ?? "");
        return this.updateSession({
          ...(model ? { model: { id: model } } : {}),
          ...(cwd && !this.session.directory ? { directory: cwd } : {}),
          ...(Number.isFinite(created) ? { createdAt: created } : {}),
        });
      }
      case "session.title_changed": {
        const title = str(d.title)?.trim();
        return title ? this.updateSession({ title }) : [];
      }
      case "session.model_change": {
        const model = str(d.newModel);
        return model ? this.updateSession({ model: { id: model } }) : [];
      }
      case "user.message":
        return this.userMessage(ev);
      case "assistant.turn_start":
        return this.turnStart(ev);
      case "assistant.turn_end":
        return this.turnEnd(ev);
      case "assistant.reasoning_delta":
        return this.reasoningDelta(ev);
      case "assistant.reasoning":
        return this.reasoningFinal(ev);
      case "assistant.message_start": {
        const id = str(d.messageId);
        const m = this.ensureAssistant(ev);
        if (!id || this.texts.has(id)) return m.events;
        this.texts.set(id, { messageId: m.info.id, text: "" });
        return [
          ...m.events,
          { type: "block.updated", messageId: m.info.id, block: { id: `text:${id}`, kind: "text", text: "" } },
        ];
      }
      case "assistant.message_delta": {
        const id = str(d.messageId);
        const delta = str(d.deltaContent);
        const t = id ? this.texts.get(id) : undefined;
        if (!id || !delta) return [];
        if (!t) {
          const m = this.ensureAssistant(ev);
          this.texts.set(id, { messageId: m.info.id, text: delta });
          return [
            ...m.events,
            { type: "block.updated", messageId: m.info.id, block: { id: `text:${id}`, kind: "text", text: delta } },
          ];
        }
        t.text += delta;
        return [{ type: "block.delta", messageId: t.messageId, blockId: `text:${id}`, field: "text", delta }];
      }
      case "assistant.message":
        return this.assistantMessage(ev);
      case "assistant.usage":
        return this.usage(ev);
      case "session.usage_info": {
        const tokens = num(d.currentTokens);
        const window = num(d.tokenLimit);
        if (tokens === undefined || window === undefined) return [];
        this.context = { tokens, window };
        return [{ type: "usage.updated", usage: this.sessionUsage() }];
      }
      case "tool.execution_start":
        return this.toolStart(ev);
      case "tool.execution_progress":
        return this.tools.progress(ev);
      case "tool.execution_partial_result":
        return this.tools.partialResult(ev);
      case "tool.execution_complete":
        return this.tools.complete(ev);
      case "session.compaction_complete":
        return this.compaction(ev);
      case "session.error":
        return this.fail(ev, { name: str(d.errorType) ?? "Error", message: str(d.message) ?? "The turn failed" });
      case "abort":
        return this.fail(ev, { name: "Aborted", message: "Stopped", aborted: true });
      case "session.idle":
        return this.idle(ev.timestamp);
      default:
        return [];
    }
  }

  private updateSession(patch: Partial<Session>): TimelineEvent[] {
    const next: Session = { ...this.session, ...patch };
    if (JSON.stringify(next) === JSON.stringify(this.session)) return [];
    this.session = next;
    return [{ type: "session.updated", session: next }];
  }

  private userMessage(ev: CopilotEvent): TimelineEvent[] {
    const text = str(ev.data.content) ?? "";
    this.userId = ev.id;
    this.assistant = undefined;
    this.lastAssistant = undefined;
    const info: MessageInfo = { id: ev.id, sessionId: this.session.id, role: "user", createdAt: ev.timestamp };
    const events: TimelineEvent[] = [
      { type: "message.updated", message: info },
      { type: "block.updated", messageId: ev.id, block: { id: `${ev.id}:text`, kind: "text", text } },
    ];
    for (const [i, a] of arr(ev.data.attachments).map(obj).entries()) {
      const name = str(a.displayName) ?? str(a.path) ?? str(a.type) ?? "attachment";
      events.push({
        type: "block.updated",
        messageId: ev.id,
        block: {
          id: `${ev.id}:file:${i}`,
          kind: "file",
          name,
          mime: str(a.mimeType) ?? "application/octet-stream",
          url: str(a.path) ?? "",
        },
      });
    }
    if (!this.busy) {
      this.busy = true;
      events.push({ type: "session.status", status: "busy" });
    }
    return events;
  }

  /** The assistant message in progress; one is opened (with the event's id) when an event needs it first. */
  private ensureAssistant(ev: CopilotEvent): { info: MessageInfo; events: TimelineEvent[] } {
    if (this.assistant) return { info: this.assistant, events: [] };
    return this.openAssistant(ev.id, ev.timestamp);
  }

  private openAssistant(id: string, createdAt: number): { info: MessageInfo; events: TimelineEvent[] } {
    const info: MessageInfo = {
      id,
      sessionId: this.session.id,
      role: "assistant",
      createdAt,
      ...(this.session.model ? { model: this.session.model } : {}),
      ...(this.userId ? { parentId: this.userId } : {}),
    };
    this.assistant = info;
    this.lastAssistant = info;
    return { info, events: [{ type: "message.updated", message: info }] };
  }

  private turnStart(ev: CopilotEvent): TimelineEvent[] {
    const closing = this.assistant ? this.closeAssistant(ev.timestamp) : [];
    return [...closing, ...this.openAssistant(ev.id, ev.timestamp).events];
  }

  private turnEnd(ev: CopilotEvent): TimelineEvent[] {
    return this.assistant ? this.closeAssistant(ev.timestamp) : [];
  }

  private closeAssistant(at: number): TimelineEvent[] {
    const a = this.assistant;
    this.assistant = undefined;
    if (!a || a.completedAt !== undefined) return [];
    const done: MessageInfo = { ...a, completedAt: Math.max(at, a.createdAt) };
    this.lastAssistant = done;
    return [{ type: "message.updated", message: done }];
  }

  private setAssistantInfo(info: MessageInfo): TimelineEvent[] {
    if (this.assistant?.id === info.id) this.assistant = info;
    if (this.lastAssistant?.id === info.id) this.lastAssistant = info;
    return [{ type: "message.updated", message: info }];
  }

  private reasoningBlock(messageId: string, key: string, text: string, at: number) {
    const block = { id: `${messageId}:reasoning`, kind: "reasoning" as const, text, startedAt: at };
    this.reasoning.set(key, { messageId, block });
    return block;
  }

  private reasoningDelta(ev: CopilotEvent): TimelineEvent[] {
    const rid = str(ev.data.reasoningId);
    const delta = str(ev.data.deltaContent);
    if (!rid || !delta) return [];
    const r = this.reasoning.get(rid);
    if (r) {
      r.block = { ...r.block, text: r.block.text + delta };
      return [{ type: "block.delta", messageId: r.messageId, blockId: r.block.id, field: "text", delta }];
    }
    const m = this.ensureAssistant(ev);
    const block = this.reasoningBlock(m.info.id, rid, delta, ev.timestamp);
    return [...m.events, { type: "block.updated", messageId: m.info.id, block }];
  }

  private reasoningFinal(ev: CopilotEvent): TimelineEvent[] {
    const rid = str(ev.data.reasoningId);
    const content = str(ev.data.content);
    if (!rid || content === undefined) return [];
    const r = this.reasoning.get(rid);
    if (r) {
      r.block = { ...r.block, text: content, endedAt: ev.timestamp };
      return [{ type: "block.updated", messageId: r.messageId, block: r.block }];
    }
    // After its message (Copilot sends the final reasoning last): it belongs to the last model call.
    const target = this.assistant ?? this.lastAssistant;
    if (!target || !content) return [];
    const block = { ...this.reasoningBlock(target.id, rid, content, ev.timestamp), endedAt: ev.timestamp };
    this.reasoning.set(rid, { messageId: target.id, block });
    return [{ type: "block.updated", messageId: target.id, block }];
  }

  private assistantMessage(ev: CopilotEvent): TimelineEvent[] {
    const d = ev.data;
    const id = str(d.messageId);
    const content = str(d.content) ?? "";
    const m = this.ensureAssistant(ev);
    const events = [...m.events];
    const model = str(d.model);
    if (model && m.info.model?.id !== model) events.push(...this.setAssistantInfo({ ...m.info, model: { id: model } }));
    const reasoningText = str(d.reasoningText);
    const hasReasoning = [...this.reasoning.values()].some((r) => r.messageId === m.info.id);
    if (reasoningText && !hasReasoning) {
      const block = {
        ...this.reasoningBlock(m.info.id, `msg:${id ?? ev.id}`, reasoningText, ev.timestamp),
        endedAt: ev.timestamp,
      };
      this.reasoning.set(`msg:${id ?? ev.id}`, { messageId: m.info.id, block });
      events.push({ type: "block.updated", messageId: m.info.id, block });
    }
    if (id && (content || this.texts.has(id))) {
      this.texts.set(id, { messageId: m.info.id, text: content });
      events.push({
        type: "block.updated",
        messageId: m.info.id,
        block: { id: `text:${id}`, kind: "text", text: content },
      });
    }
    return events;
  }

  private usage(ev: CopilotEvent): TimelineEvent[] {
    const d = ev.data;
    const input = num(d.inputTokens) ?? 0;
    const output = num(d.outputTokens) ?? 0;
    const cacheRead = num(d.cacheReadTokens) ?? 0;
    const cacheWrite = num(d.cacheWriteTokens) ?? 0;
    const reasoning = num(d.reasoningTokens);
    this.totals.input += input;
    this.totals.output += output;
    this.totals.cacheRead += cacheRead;
    this.totals.cacheWrite += cacheWrite;
    const events: TimelineEvent[] = [];
    const target = this.assistant ?? this.lastAssistant;
    if (target) {
      const prev = target.usage;
      const usage: Usage = {
        inputTokens: (prev?.inputTokens ?? 0) + input,
        outputTokens: (prev?.outputTokens ?? 0) + output,
        cacheReadTokens: (prev?.cacheReadTokens ?? 0) + cacheRead,
        cacheWriteTokens: (prev?.cacheWriteTokens ?? 0) + cacheWrite,
        ...(reasoning !== undefined ? { reasoningTokens: (prev?.reasoningTokens ?? 0) + reasoning } : {}),
      };
      const model = str(d.model);
      events.push(...this.setAssistantInfo({ ...target, usage, ...(model ? { model: { id: model } } : {}) }));
    }
    events.push({ type: "usage.updated", usage: this.sessionUsage() });
    return events;
  }

  private sessionUsage(): Usage {
    return {
      inputTokens: this.totals.input,
      outputTokens: this.totals.output,
      ...(this.totals.cacheRead ? { cacheReadTokens: this.totals.cacheRead } : {}),
      ...(this.totals.cacheWrite ? { cacheWriteTokens: this.totals.cacheWrite } : {}),
      ...(this.context ? { contextTokens: this.context.tokens, contextWindow: this.context.window } : {}),
    };
  }

  private toolStart(ev: CopilotEvent): TimelineEvent[] {
    const callId = str(ev.data.toolCallId);
    if (!callId || !str(ev.data.toolName)) return [];
    const started = this.tools.messageOf(callId);
    if (started) return this.tools.start(ev, started);
    const m = this.ensureAssistant(ev);
    return [...m.events, ...this.tools.start(ev, m.info.id)];
  }

  private compaction(ev: CopilotEvent): TimelineEvent[] {
    if (ev.data.success !== true) return [];
    const removed = num(ev.data.messagesRemoved);
    const info: MessageInfo = {
      id: ev.id,
      sessionId: this.session.id,
      role: "system",
      createdAt: ev.timestamp,
      completedAt: ev.timestamp,
      summary: true,
    };
    const text = removed
      ? `Conversation compacted (${removed} message${removed === 1 ? "" : "s"} summarized)`
      : "Conversation compacted";
    return [
      { type: "message.updated", message: info },
      {
        type: "block.updated",
        messageId: ev.id,
        block: { id: `${ev.id}:notice`, kind: "notice", level: "info", code: "compaction", text },
      },
    ];
  }

  /** An error or an abort ends the interaction: its last reply carries it (one is made when there is none). */
  private fail(ev: CopilotEvent, error: MessageError): TimelineEvent[] {
    const events: TimelineEvent[] = [];
    let target = this.assistant ?? this.lastAssistant;
    if (!target) {
      const opened = this.openAssistant(ev.id, ev.timestamp);
      events.push(...opened.events);
      target = opened.info;
    }
    events.push(
      ...this.setAssistantInfo({
        ...target,
        error,
        completedAt: target.completedAt ?? Math.max(ev.timestamp, target.createdAt),
      }),
    );
    if (this.assistant?.id === target.id) this.assistant = undefined;
    events.push(...this.tools.end(ev.timestamp, error.aborted ? "cancelled" : "error"));
    return events;
  }

  private idle(at: number): TimelineEvent[] {
    const events = [...this.closeAssistant(at), ...this.tools.end(at, "cancelled")];
    this.tools.clear();
    this.texts.clear();
    this.reasoning.clear();
    if (this.busy || events.length) events.push({ type: "session.status", status: "idle" });
    this.busy = false;
    return events;
  }
}

/**
 * A session's messages from its persisted events (`session.getMessages`): the same mapping as the
 * live stream, materialized by the shared reducer (lib/timeline/reducer.ts). Interrupts are left
 * out (pending ones are read from the CLI's own list); an interaction the history ends in the
 * middle of is closed.
 */
export function historyMessages(
  session: Session,
  rawEvents: readonly unknown[],
): { messages: Message[]; session: Session } {
  const tl = new CopilotTimeline(session);
  const events: TimelineEvent[] = [{ type: "session.updated", session }];
  for (const raw of rawEvents) {
    const ev = parseEvent(raw);
    if (ev)
      events.push(...tl.apply(ev).filter((e) => e.type !== "interrupt.requested" && e.type !== "interrupt.resolved"));
  }
  if (tl.busy)
    events.push(...tl.apply({ id: "history-end", type: "session.idle", timestamp: 0, data: {}, ephemeral: true }));
  const state = applyAll(emptyState, events);
  return { messages: state.messages, session: { ...tl.session, status: "idle" } };
}
