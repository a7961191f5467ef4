/**
 * The ACP normalizer's per-session state (./normalize.ts): the session, the running turn's messages
 * and open block, tool calls, settings, and the synthetic ids and clock of replays.
 */
import type {
  Block,
  MessageInfo,
  Session,
  SessionOption,
  SessionSettings,
  TimelineEvent,
  ToolBlock,
  Usage,
} from "@/lib/model";

export interface OpenBlock {
  kind: "text" | "reasoning";
  id: string;
  messageId: string;
  agentMessageId?: string;
  text: string;
  startedAt: number;
}

export interface AcpSessionState {
  session: Session;
  /** The assistant message of the running turn (or of the replayed exchange). */
  assistant?: { id: string };
  /** The user message being replayed by `session/load`. */
  user?: { id: string; blockId: string; text: string; agentMessageId?: string };
  open?: OpenBlock;
  tools: Map<string, { messageId: string; block: ToolBlock }>;
  /** Tool calls whose permission the user rejected: their failure is a denial. */
  rejected: Set<string>;
  usage?: Usage;
  modes?: { current: string; available: { id: string; name: string; description?: string }[] };
  config: SessionOption[];
  commands?: NonNullable<SessionSettings["commands"]>;
  /** The user renamed the session: titles from the agent are ignored. */
  titleLocked: boolean;
  /** Counters for synthetic ids. */
  turns: number;
  blocks: number;
  /** Set while collecting a `session/load` replay: messages get increasing synthetic timestamps. */
  replayClock?: number;
}

export function newSessionState(
  session: Session,
  opts: { titleLocked?: boolean; replayFrom?: number } = {},
): AcpSessionState {
  return {
    session,
    tools: new Map(),
    rejected: new Set(),
    config: [],
    titleLocked: opts.titleLocked ?? false,
    turns: 0,
    blocks: 0,
    ...(opts.replayFrom !== undefined ? { replayClock: opts.replayFrom } : {}),
    ...(session.usage ? { usage: session.usage } : {}),
  };
}

/** Ends replay mode (after `session/load` returned): later messages use the real clock. */
export function endReplay(state: AcpSessionState): TimelineEvent[] {
  const events = closeOpen(state, state.replayClock ?? 0);
  delete state.replayClock;
  state.user = undefined;
  state.assistant = undefined;
  return events;
}

export const nextBlockId = (state: AcpSessionState, messageId: string) =>
  `${messageId}-b${(++state.blocks).toString(36)}`;

export function clock(state: AcpSessionState, now: number): number {
  if (state.replayClock === undefined) return now;
  return ++state.replayClock;
}

export function assistantInfo(state: AcpSessionState, id: string, createdAt: number): MessageInfo {
  const model = state.session.model;
  return { id, sessionId: state.session.id, role: "assistant", createdAt, ...(model ? { model } : {}) };
}

/** Opens the assistant message when output arrives outside a turn (or during a replay). */
export function ensureAssistant(state: AcpSessionState, now: number): { id: string; events: TimelineEvent[] } {
  if (state.assistant) return { id: state.assistant.id, events: [] };
  const events: TimelineEvent[] = [];
  let id: string;
  if (state.user) {
    // a replayed exchange: the answer to the user message just replayed
    id = `${state.user.id}-a`;
    state.user = undefined;
  } else {
    id = `${turnId(state, now)}-a`;
  }
  state.assistant = { id };
  events.push({ type: "message.updated", message: assistantInfo(state, id, clock(state, now)) });
  return { id, events };
}

export function turnId(state: AcpSessionState, now: number): string {
  state.turns++;
  return state.replayClock !== undefined
    ? `r${state.turns.toString(36).padStart(3, "0")}`
    : `t${now.toString(36)}${state.turns.toString(36)}`;
}

/** Closes the open text/reasoning block: one last full update (reasoning gets its end time). */
export function closeOpen(state: AcpSessionState, now: number): TimelineEvent[] {
  const o = state.open;
  if (!o) return [];
  state.open = undefined;
  const block: Block =
    o.kind === "text"
      ? { id: o.id, kind: "text", text: o.text }
      : {
          id: o.id,
          kind: "reasoning",
          text: o.text,
          startedAt: o.startedAt,
          ...(state.replayClock === undefined ? { endedAt: now } : {}),
        };
  return [{ type: "block.updated", messageId: o.messageId, block }];
}
