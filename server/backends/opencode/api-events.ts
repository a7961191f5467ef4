/**
 * OpenCode `/api/event` frames → canonical events (docs/backends/opencode.md, "Two contracts" and
 * "Two generations of /api"). Frames are checked with zod at the boundary; one of an unknown type or
 * a malformed one yields nothing (the caller logs it); nothing here throws.
 *
 * Both generations of the event types are read, the one the server's `/doc` declares
 * (./contract.ts, `apiGenerationOf`): 1.18's `session.next.*` names, and upstream main's
 * (anomalyco/opencode packages/sdk/js/src/v2/gen/types.gen.ts at
 * ac9ce83255790c38fd9ec2d943ead6180ee7f591), whose frames are read as 1.18's where they only moved
 * (`fromMain`), and whose own — `session.execution.settled`, `form.*` — are read here.
 */
import type { Block, Interrupt, MessageInfo, Session, TimelineEvent, Todo, ToolBlock } from "@/lib/model";
import { canonicalTool } from "../shared/tool-names";
import { arr, obj, str, num, type Obj } from "../shared/values";
import {
  errorOf,
  toApiMessage,
  toApiPermission,
  toApiQuestion,
  toolText,
  type ApiPermission,
  type ApiQuestion,
} from "./normalize-api";
import type { Normalized } from "./normalize";
import { API_EVENTS, ApiFrame, MAIN_EVENTS, MAIN_RENAMED, QUIET, QUIET_MAIN } from "./api-frame-schemas";
import { FormBook } from "./api-forms";
import type { ApiGeneration } from "./contract";
import { toUsage } from "./sessions";
import { API_TOOL_ERRORS, toolStatusOf } from "./tool-status";

export type ApiEventResult =
  | { kind: "events"; items: Normalized[] }
  | { kind: "interrupt"; interrupt: Interrupt }
  | { kind: "resolved"; sessionId: string; interruptId: string; outcome: string }
  | { kind: "session"; session: Session; reload?: boolean }
  | { kind: "deleted"; sessionId: string }
  | { kind: "skip"; reason?: "unknown" | "malformed" };

/**
 * Maps `/api/event` frames to canonical events. It keeps, per open assistant turn, the tool calls
 * it has seen (a `tool.called` needs the name `tool.input.started` gave) and which step is running.
 */
export class ApiEventMapper {
  private tools = new Map<string, ToolBlock>();
  /**
   * Permission or question request → the tool call that asked; the calls whose request was rejected
   * → whether OpenCode ends the turn at their failure (not after a rejection with feedback).
   */
  private asking = new Map<string, string>();
  private rejected = new Map<string, boolean>();
  /** Permission requests rejected with feedback: OpenCode goes on with the turn after those. */
  private withFeedback = new Set<string>();
  /** The generation of the event types read (./contract.ts): the pinned 1.18's until `/doc` says. */
  private generation: ApiGeneration = "1.18";
  /** Upstream main: the prompts admitted, by input id, shown as the user's message once promoted. */
  private prompts = new Map<string, { prompt: Obj; at: number }>();
  /** Upstream main: per session, the assistant message of the step under way, and a compaction's message. */
  private openStep = new Map<string, string>();
  private compactions = new Map<string, string>();
  /** Upstream main: the sessions whose turn's failure a `step.failed` already showed. */
  private failureShown = new Set<string>();
  /** The forms asked (upstream main), to answer them by. */
  readonly forms = new FormBook();

  constructor(private backendId: string) {}

  /** The generation the server's `/doc` declares (./contract.ts, `detectServer`). */
  setGeneration(generation: ApiGeneration): void {
    this.generation = generation;
  }

  private remember<K, V>(map: Map<K, V>, key: K, value: V) {
    map.set(key, value);
    if (map.size > 500) map.delete(map.keys().next().value!);
  }

  /**
   * The console is rejecting `requestId` with a message: OpenCode then goes on with the turn (a new
   * step follows the failed call), so that call's failure does not end it. The replied frame does not
   * say whether a message was sent.
   */
  rejectingWithFeedback(requestId: string) {
    this.withFeedback.add(requestId);
    if (this.withFeedback.size > 500) this.withFeedback.delete(this.withFeedback.values().next().value!);
  }

  private ask(requestId: string, callId: string | undefined) {
    if (!callId) return;
    this.asking.set(requestId, callId);
    if (this.asking.size > 500) this.asking.delete(this.asking.keys().next().value!);
  }

  /** A rejected request's call fails next, and OpenCode ends the turn there without a step frame. */
  private settle(requestId: string, rejected: boolean) {
    const call = this.asking.get(requestId);
    this.asking.delete(requestId);
    const feedback = this.withFeedback.delete(requestId);
    if (call && rejected) this.rejected.set(call, !feedback);
    if (this.rejected.size > 500) this.rejected.delete(this.rejected.keys().next().value!);
  }

  map(raw: unknown): ApiEventResult {
    const frame = ApiFrame.safeParse(raw);
    if (!frame.success) return { kind: "skip", reason: "malformed" };
    let { type, data } = frame.data;
    if (this.generation === "2") {
      const moved = this.fromMain(frame.data);
      if ("kind" in moved) return moved;
      ({ type, data } = moved);
    } else if (type.startsWith("form.") || type === "session.execution.settled")
      return { kind: "skip", reason: "unknown" };
    if (!(type in API_EVENTS)) return QUIET.test(type) ? { kind: "skip" } : { kind: "skip", reason: "unknown" };
    const schema = API_EVENTS[type as keyof typeof API_EVENTS];
    const parsed = schema.safeParse(data);
    if (!parsed.success) return { kind: "skip", reason: "malformed" };
    return this.mapKnown(type as keyof typeof API_EVENTS, parsed.data as Obj);
  }

  /**
   * An upstream main frame: read here when it is main's own, else given back as the 1.18 frame it
   * only moved from (renamed, its time from the envelope's `created`).
   */
  private fromMain(frame: ApiFrame): ApiEventResult | { type: string; data: unknown } {
    const { type, data } = frame;
    const ts = frame.created ?? Date.now();
    const renamed = MAIN_RENAMED[type];
    if (renamed) return { type: renamed, data: { ...obj(data), timestamp: ts } };
    if (!(type in MAIN_EVENTS)) {
      if (type.startsWith("session.next.")) return { kind: "skip", reason: "unknown" };
      if (QUIET_MAIN.test(type)) return { kind: "skip" };
      return { type, data };
    }
    const parsed = MAIN_EVENTS[type as keyof typeof MAIN_EVENTS].safeParse(data);
    if (!parsed.success) return { kind: "skip", reason: "malformed" };
    const d = parsed.data as Obj;
    const sessionId = str(d.sessionID) ?? "";
    switch (type as keyof typeof MAIN_EVENTS) {
      case "session.prompt.admitted":
        // Admitted to the session's inputs (queued, or steering the turn): it becomes the user's
        // message when promoted, as 1.18's `session.next.prompted` did.
        this.remember(this.prompts, str(d.inputID)!, { prompt: obj(d.prompt), at: ts });
        return { kind: "skip" };
      case "session.prompt.promoted": {
        const admitted = this.prompts.get(str(d.inputID)!);
        this.prompts.delete(str(d.inputID)!);
        // An input admitted before this console connected: the history shows it (busy meanwhile).
        // The message is dated when it was admitted, when the user sent it.
        return admitted
          ? {
              type: "session.next.prompted",
              data: { sessionID: sessionId, messageID: d.inputID, timestamp: admitted.at, prompt: admitted.prompt },
            }
          : this.events(sessionId, { type: "session.status", status: "busy" });
      }
      case "session.compaction.started": {
        // Main's compaction frames name no message: the compaction is shown under one of its own.
        const messageID = `msg_compaction_${(frame.id ?? String(ts)).replace(/^evt_/, "")}`;
        this.remember(this.compactions, sessionId, messageID);
        return { type: "session.next.compaction.started", data: { sessionID: sessionId, messageID, timestamp: ts } };
      }
      case "session.compaction.ended": {
        const messageID =
          this.compactions.get(sessionId) ?? `msg_compaction_${(frame.id ?? String(ts)).replace(/^evt_/, "")}`;
        this.compactions.delete(sessionId);
        return {
          type: "session.next.compaction.ended",
          data: { sessionID: sessionId, messageID, timestamp: ts, text: d.text },
        };
      }
      case "session.execution.settled":
        return this.settled(sessionId, str(d.outcome)!, d.error, ts);
      case "form.created": {
        const it = this.forms.interrupt(d.form);
        return it ? { kind: "interrupt", interrupt: it } : { kind: "skip", reason: "malformed" };
      }
      case "form.replied":
      case "form.cancelled":
        this.forms.forget(str(d.id)!);
        return {
          kind: "resolved",
          sessionId,
          interruptId: str(d.id)!,
          outcome: type === "form.replied" ? "answered" : "cancelled",
        };
    }
  }

  /**
   * Upstream main's end of a turn (`session.execution.settled {outcome}`): the session is idle. A
   * failure not shown yet (no `step.failed` told it) is shown as the turn's error; an interrupted
   * turn's open reply is marked stopped.
   */
  private settled(sessionId: string, outcome: string, rawError: unknown, ts: number): ApiEventResult {
    const open = this.openStep.get(sessionId);
    this.openStep.delete(sessionId);
    const shown = this.failureShown.delete(sessionId);
    const out: TimelineEvent[] = [];
    if (outcome === "interrupted" && open)
      out.push(
        assistantUpdated(sessionId, open, ts, { completedAt: ts, error: errorOf({ message: "Step interrupted" })! }),
      );
    if (outcome === "failure" && !shown) {
      const error = errorOf(rawError) ?? { name: "Error", message: "The turn failed" };
      if (open) out.push(assistantUpdated(sessionId, open, ts, { completedAt: ts, error }));
      if (!error.aborted) out.push({ type: "error", message: error.message });
    }
    out.push({ type: "session.status", status: "idle" });
    return this.events(sessionId, ...out);
  }

  private events(sessionId: string, ...events: TimelineEvent[]): ApiEventResult {
    return { kind: "events", items: events.map((event) => ({ sessionId, event })) };
  }

  /** One block of `messageId`, shown whole. */
  private block(sessionId: string, messageId: string, block: Block): ApiEventResult {
    return this.events(sessionId, { type: "block.updated", messageId, block });
  }

  /** Text streamed onto a text or reasoning block. */
  private textDelta(sessionId: string, messageId: string, blockId: string, delta: string): ApiEventResult {
    return this.events(sessionId, { type: "block.delta", messageId, blockId, field: "text", delta });
  }

  private tool(messageId: string, callId: string, name?: string): ToolBlock {
    let b = this.tools.get(callId);
    if (!b) {
      const rawTool = name ?? "tool";
      b = { id: callId, kind: "tool", callId, tool: canonicalTool(rawTool), rawTool, status: "pending", input: {} };
      this.tools.set(callId, b);
      if (this.tools.size > 500) this.tools.delete(this.tools.keys().next().value!);
    } else if (name) {
      b = { ...b, rawTool: name, tool: canonicalTool(name) };
    }
    void messageId;
    return b;
  }

  private mapKnown(type: keyof typeof API_EVENTS, d: Obj): ApiEventResult {
    const sessionId = str(d.sessionID)!;
    const messageId = str(d.assistantMessageID) ?? str(d.messageID) ?? "";
    const ts = num(d.timestamp) ?? Date.now();
    switch (type) {
      case "session.created":
      case "session.updated": {
        const s = toApiSessionLoose(d.info, this.backendId);
        return s ? { kind: "session", session: s } : { kind: "skip", reason: "malformed" };
      }
      case "session.deleted":
        return { kind: "deleted", sessionId };
      case "session.next.prompted": {
        const prompt = obj(d.prompt);
        const msg = toApiMessage(
          { id: messageId, type: "user", time: { created: ts }, text: str(prompt.text) ?? "", files: prompt.files },
          sessionId,
        )!;
        const { blocks, ...info } = msg;
        return this.events(
          sessionId,
          { type: "message.updated", message: info },
          ...blocks.map((block): TimelineEvent => ({ type: "block.updated", messageId, block })),
          { type: "session.status", status: "busy" },
        );
      }
      case "session.next.prompt.admitted":
        return this.events(sessionId, { type: "session.status", status: "busy" });
      case "session.next.synthetic":
        return { kind: "skip" };
      case "session.next.step.started": {
        this.remember(this.openStep, sessionId, messageId);
        const model = obj(d.model);
        return this.events(
          sessionId,
          { type: "session.status", status: "busy" },
          assistantUpdated(sessionId, messageId, ts, {
            ...(str(model.id)
              ? {
                  model: { id: str(model.id)!, ...(str(model.providerID) ? { provider: str(model.providerID)! } : {}) },
                }
              : {}),
            ...(str(d.agent) ? { agent: str(d.agent)! } : {}),
          }),
        );
      }
      case "session.next.step.ended": {
        const usage = toUsage(d.tokens, d.cost);
        const done = str(d.finish) !== "tool-calls";
        const out: TimelineEvent[] = [
          assistantUpdated(sessionId, messageId, ts, {
            ...(done ? { completedAt: ts } : {}),
            ...(usage && (usage.inputTokens || usage.outputTokens) ? { usage } : {}),
          }),
        ];
        this.openStep.delete(sessionId);
        // Upstream main ends the turn with `session.execution.settled`, not with its last step.
        if (done && this.generation === "1.18") out.push({ type: "session.status", status: "idle" });
        return this.events(sessionId, ...out);
      }
      case "session.next.step.failed": {
        const error = errorOf(d.error) ?? { name: "Error", message: "The step failed" };
        this.openStep.delete(sessionId);
        if (this.generation === "2") this.failureShown.add(sessionId);
        return this.events(
          sessionId,
          assistantUpdated(sessionId, messageId, ts, { completedAt: ts, error }),
          ...(error.aborted ? [] : [{ type: "error" as const, message: error.message }]),
          ...(this.generation === "1.18" ? [{ type: "session.status" as const, status: "idle" as const }] : []),
        );
      }
      case "session.next.text.started":
        return this.block(sessionId, messageId, { id: str(d.textID)!, kind: "text", text: "" });
      case "session.next.text.delta":
        return this.textDelta(sessionId, messageId, str(d.textID)!, str(d.delta)!);
      case "session.next.text.ended":
        return this.block(sessionId, messageId, { id: str(d.textID)!, kind: "text", text: str(d.text)! });
      case "session.next.reasoning.started":
        return this.block(sessionId, messageId, {
          id: str(d.reasoningID)!,
          kind: "reasoning",
          text: "",
          startedAt: ts,
        });
      case "session.next.reasoning.delta":
        return this.textDelta(sessionId, messageId, str(d.reasoningID)!, str(d.delta)!);
      case "session.next.reasoning.ended":
        return this.block(sessionId, messageId, {
          id: str(d.reasoningID)!,
          kind: "reasoning",
          text: str(d.text)!,
          endedAt: ts,
        });
      case "session.next.tool.input.started": {
        const b = { ...this.tool(messageId, str(d.callID)!, str(d.name)), status: "pending" as const, startedAt: ts };
        this.tools.set(b.callId, b);
        return this.block(sessionId, messageId, b);
      }
      case "session.next.tool.input.delta":
      case "session.next.tool.input.ended":
        return { kind: "skip" };
      case "session.next.tool.called": {
        const prev = this.tool(messageId, str(d.callID)!, str(d.tool));
        const b: ToolBlock = { ...prev, status: "running", input: obj(d.input), startedAt: prev.startedAt ?? ts };
        this.tools.set(b.callId, b);
        return this.block(sessionId, messageId, b);
      }
      case "session.next.tool.progress":
      case "session.next.tool.success": {
        const prev = this.tool(messageId, str(d.callID)!);
        const structured = obj(d.structured);
        const output = toolText(d.content) ?? str(structured.output) ?? prev.output;
        const b: ToolBlock = { ...prev, status: type === "session.next.tool.success" ? "completed" : "running" };
        if (output !== undefined) b.output = output;
        if (num(structured.exit) !== undefined) b.exitCode = num(structured.exit)!;
        if (str(structured.title)) b.title = str(structured.title)!;
        if (type === "session.next.tool.success") b.endedAt = ts;
        this.tools.set(b.callId, b);
        if (type === "session.next.tool.success") this.tools.delete(b.callId);
        return this.block(sessionId, messageId, b);
      }
      case "session.next.tool.failed": {
        const prev = this.tool(messageId, str(d.callID)!);
        const error = str(obj(d.error).message) ?? "failed";
        this.tools.delete(prev.callId);
        const rejected = this.rejected.get(prev.callId);
        this.rejected.delete(prev.callId);
        // Rejected with feedback: the call is denied and OpenCode goes on with the turn.
        if (rejected === false)
          return this.block(sessionId, messageId, { ...prev, status: "denied", error, endedAt: ts });
        if (rejected) {
          // A rejected permission or question stops the turn: OpenCode ends it without a step frame.
          return this.events(
            sessionId,
            { type: "block.updated", messageId, block: { ...prev, status: "denied", error, endedAt: ts } },
            assistantUpdated(sessionId, messageId, ts, { completedAt: ts }),
            ...(this.generation === "1.18" ? [{ type: "session.status" as const, status: "idle" as const }] : []),
          );
        }
        return this.block(sessionId, messageId, {
          ...prev,
          status: toolStatusOf("error", error, API_TOOL_ERRORS),
          error,
          endedAt: ts,
        });
      }
      case "session.next.retried": {
        const message = str(obj(d.error).message) ?? "retrying";
        return this.events(sessionId, {
          type: "session.status",
          status: "retry",
          detail: `${message} (attempt ${num(d.attempt) ?? "?"})`,
        });
      }
      case "session.next.compaction.started":
        return this.events(
          sessionId,
          { type: "session.status", status: "busy" },
          assistantUpdated(sessionId, messageId, ts, { summary: true }),
          {
            type: "block.updated",
            messageId,
            block: {
              id: `${messageId}-compaction`,
              kind: "notice",
              level: "info",
              code: "compaction",
              text: "Conversation compacted",
            },
          },
        );
      case "session.next.compaction.ended":
        return this.events(
          sessionId,
          assistantUpdated(sessionId, messageId, ts, { completedAt: ts, summary: true }),
          { type: "block.updated", messageId, block: { id: `${messageId}-summary`, kind: "text", text: str(d.text)! } },
          ...(this.generation === "1.18" ? [{ type: "session.status" as const, status: "idle" as const }] : []),
        );
      case "session.next.revert.staged":
      case "session.next.revert.cleared":
      case "session.next.revert.committed":
        // The session's revert state is re-read by the adapter (the frame carries no whole session);
        // a commit also dropped the reverted messages, which no frame names: the history is reloaded.
        return {
          kind: "session",
          session: { id: sessionId, backendId: this.backendId, title: "", createdAt: 0, updatedAt: 0, status: "idle" },
          ...(type === "session.next.revert.committed" ? { reload: true } : {}),
        };
      case "permission.v2.asked": {
        const it = toApiPermission(d as unknown as ApiPermission);
        this.ask(it.id, it.toolCallId);
        return { kind: "interrupt", interrupt: it };
      }
      case "permission.v2.replied":
        this.settle(str(d.requestID)!, str(d.reply) === "reject");
        return { kind: "resolved", sessionId, interruptId: str(d.requestID)!, outcome: str(d.reply)! };
      case "question.v2.asked": {
        const it = toApiQuestion(d as unknown as ApiQuestion);
        if (it) this.ask(it.id, it.toolCallId);
        return it ? { kind: "interrupt", interrupt: it } : { kind: "skip", reason: "malformed" };
      }
      case "question.v2.replied":
        this.settle(str(d.requestID)!, false);
        return { kind: "resolved", sessionId, interruptId: str(d.requestID)!, outcome: "answered" };
      case "question.v2.rejected":
        this.settle(str(d.requestID)!, true);
        return { kind: "resolved", sessionId, interruptId: str(d.requestID)!, outcome: "rejected" };
      case "todo.updated":
        return this.events(sessionId, {
          type: "todo.updated",
          todos: arr(d.todos).map(
            (t): Todo => ({
              content: str(obj(t).content) ?? "",
              status: str(obj(t).status) ?? "pending",
              ...(str(obj(t).priority) ? { priority: str(obj(t).priority)! } : {}),
            }),
          ),
        });
    }
  }
}

/** `message.updated` of the turn's assistant message `messageId` (created at `ts`), with `more` of its info. */
function assistantUpdated(
  sessionId: string,
  messageId: string,
  ts: number,
  more: Omit<MessageInfo, "id" | "sessionId" | "role" | "createdAt">,
): TimelineEvent {
  return { type: "message.updated", message: { id: messageId, sessionId, role: "assistant", createdAt: ts, ...more } };
}

/** `session.created`/`updated` carry the V1 session shape on the /api stream: read it defensively. */
function toApiSessionLoose(raw: unknown, backendId: string): Session | null {
  const s = obj(raw);
  const id = str(s.id);
  if (!id) return null;
  const time = obj(s.time);
  const out: Session = {
    id,
    backendId,
    title: str(s.title) ?? "Untitled",
    createdAt: num(time.created) ?? 0,
    updatedAt: num(time.updated) ?? num(time.created) ?? 0,
    status: "idle",
  };
  const dir = str(s.directory) ?? str(obj(s.location).directory);
  if (dir) out.directory = dir;
  if (str(s.parentID)) out.parentId = str(s.parentID)!;
  return out;
}
