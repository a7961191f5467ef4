/**
 * What the conformance suite (./conformance.ts) runs on: the target a backend provides, the sink that
 * forwards to the real hub and records every event (checked against the canonical schema), and the
 * readers of a transcript the checks use.
 */
import {
  TimelineEvent as TimelineEventSchema,
  type Backend,
  type Message,
  type Session,
  type TimelineEvent,
  type ToolBlock,
} from "@/lib/model";
import type { ScriptedToolCall, ScriptedTurn } from "../../testkit/scripted-model";
import type { Hub } from "../hub/hub";
import type { SessionChannel } from "../hub/session-channel";
import type { BackendAdapter, EventSink, LoadedSession } from "./types";

export interface ConformanceTarget {
  /** Starts a new adapter instance on the same backing data (a new process for stdio agents). */
  open(sink: EventSink): Promise<BackendAdapter>;
  /** Queue scripted model turns (consumed in order by the backend's next model requests). */
  enqueue(...turns: ScriptedTurn[]): void;
  resetModel(): void;
  /** The target is configured so that bash asks for permission (required to check interrupts). */
  asksPermission: boolean;
  /** Takes part in ./conformance-stop.ts's checks: Stop while a tool runs, and while a permission waits. */
  stopsInEveryState?: boolean;
  /** Its protocol shows tool calls (default true; a plain A2A agent sends only text, data and files). */
  toolCalls?: boolean;
  /** A shell command as this backend's model calls it (default: a `bash` tool with `command` and `description`). */
  shell?(command: string, description: string): ScriptedToolCall;
  /** How this backend's model asks the user a question (its question tool), where it declares questions. */
  questionTurn?(q: { question: string; options: string[] }): ScriptedTurn;
  /**
   * Kills the backend's process mid-turn, as a crash would (SIGKILL). A backend the console
   * supervises comes back by itself; a target that runs the backend itself starts it again.
   */
  killBackend(adapter: BackendAdapter): Promise<void>;
  close(): Promise<void>;
}

/** What the suite's checks in other files (./conformance-stop.ts, ./conformance-capabilities.ts) run on. */
export interface ConformanceHost {
  adapter(): BackendAdapter;
  target(): ConformanceTarget;
  newSession(title: string): Promise<{ session: Session; channel: SessionChannel }>;
  runTurn(channel: SessionChannel, prompt: string): Promise<unknown>;
}

/** Forwards to the hub and records every event, per session. */
export class TeeSink implements EventSink {
  hub: Hub | undefined;
  events: { sessionId: string; event: TimelineEvent }[] = [];
  /** Events that did not pass the canonical schema, with why. */
  invalid: { event: unknown; issues: string }[] = [];
  publish(backendId: string, sessionId: string, event: TimelineEvent) {
    const checked = TimelineEventSchema.safeParse(event);
    if (!checked.success) this.invalid.push({ event, issues: checked.error.message });
    this.events.push({ sessionId, event });
    this.hub?.publish(backendId, sessionId, event);
  }
  backendChanged(b: Backend) {
    this.hub?.backendChanged(b);
  }
  openSessions(backendId: string) {
    return this.hub?.openSessions(backendId) ?? [];
  }
  reconcile(backendId: string, sessionId: string, fresh: LoadedSession) {
    this.hub?.reconcile(backendId, sessionId, fresh);
  }
  sessionState(backendId: string, sessionId: string) {
    return this.hub?.sessionState(backendId, sessionId);
  }
  async openSession(backendId: string, sessionId: string) {
    await this.hub?.openSession(backendId, sessionId);
  }
}

/** The target's shell tool call (its own tool name and arguments), else `bash`. */
export function shellCall(target: ConformanceTarget, command: string, description: string): ScriptedToolCall {
  return target.shell?.(command, description) ?? { name: "bash", arguments: { command, description } };
}

export const assistantText = (messages: Message[]) =>
  messages
    .filter((m) => m.role === "assistant")
    .map((m) =>
      m.blocks
        .filter((b) => b.kind === "text")
        .map((b) => (b.kind === "text" ? b.text : ""))
        .join(""),
    )
    .join("\n");
export const userText = (messages: Message[]) =>
  messages
    .filter((m) => m.role === "user")
    .flatMap((m) => m.blocks.filter((b) => b.kind === "text").map((b) => (b.kind === "text" ? b.text : "")));
export const toolBlocks = (messages: Message[]) =>
  messages.flatMap((m) => m.blocks).filter((b): b is ToolBlock => b.kind === "tool");
