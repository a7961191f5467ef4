/**
 * The one reducer (docs/architecture.md, "One model, one reducer"): `apply(state, event)` materializes a session in the hub
 * (for snapshots) and in the browser (for live updates). Pure, with structural sharing: only the
 * message and block an event touches get new identities, so React re-renders only those.
 */
import type {
  Block,
  Interrupt,
  Message,
  MessageInfo,
  Session,
  SessionStatus,
  Snapshot,
  TimelineEvent,
  Todo,
  ToolBlock,
} from "../model";
import { interruptAsks, shownStatus } from "./selectors";

export interface SessionState {
  session: Session | null;
  /** Messages in chronological order. An array keeps per-delta copies cheap for long sessions. */
  messages: Message[];
  /** Pending interrupts, oldest first. */
  interrupts: Interrupt[];
  todos: Todo[];
  lastError?: { message: string; code?: string };
}

export const emptyState: SessionState = { session: null, messages: [], interrupts: [], todos: [] };

export function stateFromSnapshot(s: Pick<Snapshot, "session" | "messages" | "interrupts" | "todos" | "lastError">): SessionState {
  return {
    session: s.session,
    messages: s.messages,
    interrupts: s.interrupts,
    todos: s.todos,
    ...(s.lastError ? { lastError: s.lastError } : {}),
  };
}

/** Index of a message, searching from the end where streaming happens. */
export function findMessageIndex(messages: readonly Message[], id: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i;
  return -1;
}

function findBlockIndex(blocks: readonly Block[], id: string): number {
  for (let i = blocks.length - 1; i >= 0; i--) if (blocks[i]!.id === id) return i;
  return -1;
}

function replaceAt<T>(arr: readonly T[], i: number, v: T): T[] {
  const next = arr.slice();
  next[i] = v;
  return next;
}

function withStatus(session: Session, status: SessionStatus, detail: string | undefined, pending: number): Session {
  // A pending interrupt is what a running session is blocked on: show it as `waiting`.
  const effective = shownStatus(status, pending);
  if (session.status === effective && session.statusDetail === detail) return session;
  const next: Session = { ...session, status: effective };
  if (detail === undefined) delete next.statusDetail;
  else next.statusDetail = detail;
  return next;
}

/** A tool that is blocked on a pending interrupt (its own, or its subagent's) shows `awaiting-approval`. */
function approvalStatus(block: ToolBlock, interrupts: readonly Interrupt[], sessionId: string | undefined): ToolBlock {
  if (block.status !== "running" && block.status !== "pending") return block;
  const waiting = interrupts.some((i) => asks(i, sessionId)(block));
  return waiting ? { ...block, status: "awaiting-approval" } : block;
}

/** The tool blocks an interrupt is about (lib/timeline/selectors.ts). */
const asks = interruptAsks;

function updateTools(messages: Message[], match: (b: ToolBlock) => boolean, f: (b: ToolBlock) => ToolBlock): Message[] {
  for (let mi = messages.length - 1; mi >= 0; mi--) {
    const m = messages[mi]!;
    for (let bi = m.blocks.length - 1; bi >= 0; bi--) {
      const b = m.blocks[bi]!;
      if (b.kind === "tool" && match(b)) {
        const nb = f(b);
        if (nb === b) return messages;
        return replaceAt(messages, mi, { ...m, blocks: replaceAt(m.blocks, bi, nb) });
      }
    }
  }
  return messages;
}

function insertMessage(messages: Message[], msg: Message): Message[] {
  let i = messages.length;
  while (i > 0) {
    const prev = messages[i - 1]!;
    if (prev.createdAt < msg.createdAt || (prev.createdAt === msg.createdAt && prev.id <= msg.id)) break;
    i--;
  }
  const next = messages.slice();
  next.splice(i, 0, msg);
  return next;
}

function placeholderMessage(id: string, sessionId: string): Message {
  return { id, sessionId, role: "assistant", createdAt: Date.now(), blocks: [] };
}

export function apply(state: SessionState, event: TimelineEvent): SessionState {
  switch (event.type) {
    case "session.updated": {
      const prev = state.session;
      const s = event.session;
      const merged: Session = prev
        ? {
            ...s,
            status: prev.status,
            ...(prev.statusDetail !== undefined ? { statusDetail: prev.statusDetail } : {}),
            ...(s.usage ?? prev.usage ? { usage: s.usage ?? prev.usage } : {}),
            ...(s.forkedFrom ?? prev.forkedFrom ? { forkedFrom: s.forkedFrom ?? prev.forkedFrom } : {}),
          }
        : withStatus(s, s.status, s.statusDetail, state.interrupts.length);
      return { ...state, session: merged };
    }
    case "session.status": {
      if (!state.session) return state;
      const session = withStatus(state.session, event.status, event.detail, state.interrupts.length);
      const lastError = event.status === "busy" ? undefined : state.lastError;
      if (session === state.session && lastError === state.lastError) return state;
      const next: SessionState = { ...state, session };
      if (lastError === undefined) delete next.lastError;
      return next;
    }
    case "message.updated": {
      const info: MessageInfo = event.message;
      const i = findMessageIndex(state.messages, info.id);
      if (i < 0) return { ...state, messages: insertMessage(state.messages, { ...info, blocks: [] }) };
      const prev = state.messages[i]!;
      return { ...state, messages: replaceAt(state.messages, i, { ...info, blocks: prev.blocks }) };
    }
    case "message.removed": {
      const i = findMessageIndex(state.messages, event.messageId);
      if (i < 0) return state;
      const messages = state.messages.slice();
      messages.splice(i, 1);
      return { ...state, messages };
    }
    case "block.updated": {
      let messages = state.messages;
      let mi = findMessageIndex(messages, event.messageId);
      if (mi < 0) {
        messages = insertMessage(messages, placeholderMessage(event.messageId, state.session?.id ?? ""));
        mi = findMessageIndex(messages, event.messageId);
      }
      const m = messages[mi]!;
      const block: Block = event.block.kind === "tool" ? approvalStatus(event.block, state.interrupts, state.session?.id) : event.block;
      const bi = findBlockIndex(m.blocks, block.id);
      const blocks = bi < 0 ? [...m.blocks, block] : replaceAt(m.blocks, bi, block);
      return { ...state, messages: replaceAt(messages, mi, { ...m, blocks }) };
    }
    case "block.delta": {
      const mi = findMessageIndex(state.messages, event.messageId);
      if (mi < 0) return state;
      const m = state.messages[mi]!;
      const bi = findBlockIndex(m.blocks, event.blockId);
      if (bi < 0) return state;
      const b = m.blocks[bi]!;
      let nb: Block;
      if (event.field === "text" && (b.kind === "text" || b.kind === "reasoning")) {
        nb = { ...b, text: b.text + event.delta };
      } else if (event.field === "output" && b.kind === "tool") {
        nb = { ...b, output: (b.output ?? "") + event.delta };
      } else return state;
      return { ...state, messages: replaceAt(state.messages, mi, { ...m, blocks: replaceAt(m.blocks, bi, nb) }) };
    }
    case "block.removed": {
      const mi = findMessageIndex(state.messages, event.messageId);
      if (mi < 0) return state;
      const m = state.messages[mi]!;
      const bi = findBlockIndex(m.blocks, event.blockId);
      if (bi < 0) return state;
      const blocks = m.blocks.slice();
      blocks.splice(bi, 1);
      return { ...state, messages: replaceAt(state.messages, mi, { ...m, blocks }) };
    }
    case "interrupt.requested": {
      const it = event.interrupt;
      const existing = state.interrupts.findIndex((x) => x.id === it.id);
      const interrupts = existing < 0 ? [...state.interrupts, it] : replaceAt(state.interrupts, existing, it);
      let messages = state.messages;
      const sid = state.session?.id;
      {
        messages = updateTools(messages, asks(it, sid), (b) =>
          b.status === "running" || b.status === "pending" ? { ...b, status: "awaiting-approval" } : b,
        );
      }
      const session = state.session
        ? withStatus(state.session, state.session.status === "idle" ? "busy" : state.session.status, state.session.statusDetail, interrupts.length)
        : null;
      return { ...state, interrupts, messages, session };
    }
    case "interrupt.resolved": {
      const it = state.interrupts.find((x) => x.id === event.interruptId);
      if (!it) return state;
      const interrupts = state.interrupts.filter((x) => x.id !== event.interruptId);
      let messages = state.messages;
      const sid = state.session?.id;
      {
        const match = asks(it, sid);
        messages = updateTools(messages, match, (b) => {
          if (b.status !== "awaiting-approval") return b;
          if (interrupts.some((x) => asks(x, sid)(b))) return b;
          // A rejected subagent permission does not deny the task itself.
          return { ...b, status: event.outcome === "reject" && it.sessionId === sid ? "denied" : "running" };
        });
      }
      let session = state.session;
      if (session && session.status === "waiting" && interrupts.length === 0) session = { ...session, status: "busy" };
      return { ...state, interrupts, messages, session };
    }
    case "todo.updated":
      return { ...state, todos: event.todos };
    case "usage.updated":
      return state.session ? { ...state, session: { ...state.session, usage: event.usage } } : state;
    case "error":
      return { ...state, lastError: { message: event.message, ...(event.code ? { code: event.code } : {}) } };
    case "stream.reset":
      return state;
  }
}

export function applyAll(state: SessionState, events: readonly TimelineEvent[]): SessionState {
  let s = state;
  for (const e of events) s = apply(s, e);
  return s;
}
