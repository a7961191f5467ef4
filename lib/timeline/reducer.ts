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

export function stateFromSnapshot(
  s: Pick<Snapshot, "session" | "messages" | "interrupts" | "todos" | "lastError">,
): SessionState {
  return {
    session: s.session,
    messages: s.messages,
    interrupts: s.interrupts,
    todos: s.todos,
    ...(s.lastError ? { lastError: s.lastError } : {}),
  };
}

/*
 * Cost per event independent of the session's length:
 * - Lookups go through an id → index map cached per messages (or blocks) array. A copy that keeps
 *   every position (a delta, a block update) inherits its source's map, so the map is built once per
 *   structural change (insert, removal), not per delta. Every hit is verified (`arr[i].id === id`),
 *   so a stale map can only cost a rebuild, never a wrong answer.
 * - `applyAll` applies a batch with transient arrays: the first change in a batch copies the
 *   messages array (and a message's blocks array) once, later events of the same batch write into
 *   that private copy. Nothing the caller passed in is ever mutated; `apply` alone stays fully pure.
 * - `coalesceDeltas` (lib/timeline/coalesce.ts) merges the deltas of one frame before they get here.
 */
type Keyed = { readonly id: string };
const indexes = new WeakMap<readonly Keyed[], Map<string, number>>();
const shapes = new WeakMap<readonly Message[], object>();
/** Arrays created inside the running `applyAll` batch: private to it, safe to write in place. */
let draft: WeakSet<readonly unknown[]> | null = null;

function indexOf(arr: readonly Keyed[], id: string): number {
  const n = arr.length;
  if (n === 0) return -1;
  if (arr[n - 1]!.id === id) return n - 1; // streaming happens at the end
  if (n <= 16) {
    for (let i = n - 2; i >= 0; i--) if (arr[i]!.id === id) return i;
    return -1;
  }
  let map = indexes.get(arr);
  if (map) {
    const i = map.get(id);
    if (i !== undefined && arr[i]?.id === id) return i;
  }
  map = new Map();
  for (let i = 0; i < n; i++) map.set(arr[i]!.id, i);
  indexes.set(arr, map);
  const i = map.get(id);
  return i === undefined ? -1 : i;
}

/**
 * A token that stays the same while only the blocks of non-user messages change (deltas, tool
 * updates), and is new after anything else (a message added, removed or updated, a user message's
 * blocks, older pages). Views derived from the message list's shape — turns and their changes —
 * memoize on it instead of recomputing every frame.
 */
export function messagesShape(messages: readonly Message[]): object {
  let token = shapes.get(messages);
  if (!token) {
    token = {};
    shapes.set(messages, token);
  }
  return token;
}

/** `next` differs from `prev` only in the blocks of the non-user message at `i`. */
function keepShape(prev: readonly Message[], next: readonly Message[], i: number) {
  if (next[i]?.role === "user") shapes.delete(next);
  if (prev === next || next[i]?.role === "user") return;
  const token = shapes.get(prev);
  if (token) shapes.set(next, token);
}

/** Index of a message (an id → index map per array, shared by copies that keep positions). */
export function findMessageIndex(messages: readonly Message[], id: string): number {
  return indexOf(messages, id);
}

function findBlockIndex(blocks: readonly Block[], id: string): number {
  return indexOf(blocks, id);
}

/** A private copy of `arr` for the running batch (or `arr` itself when it already is one). */
function writable<T>(arr: readonly T[]): T[] {
  if (draft?.has(arr)) return arr as T[];
  const next = arr.slice();
  const map = indexes.get(arr as unknown as readonly Keyed[]);
  if (map) indexes.set(next as unknown as readonly Keyed[], map);
  draft?.add(next);
  return next;
}

function replaceAt<T>(arr: readonly T[], i: number, v: T): T[] {
  const next = writable(arr);
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
  const next = writable(messages);
  shapes.delete(next);
  if (i === next.length) {
    next.push(msg);
    // Appending keeps every earlier position: the source's map stays valid for the new array.
    indexes.get(next)?.set(msg.id, i);
  } else {
    next.splice(i, 0, msg);
    indexes.delete(next);
  }
  return next;
}

function removeAt<T>(arr: readonly T[], i: number): T[] {
  const next = writable(arr);
  next.splice(i, 1);
  indexes.delete(next as unknown as readonly Keyed[]);
  shapes.delete(next as unknown as readonly Message[]);
  return next;
}

/** Keeps who answered an interrupt on the message it belongs to (once per interrupt). */
function withAnswer(
  messages: Message[],
  answered: Extract<TimelineEvent, { type: "interrupt.resolved" }>["answered"],
): Message[] {
  if (!answered) return messages;
  const i = findMessageIndex(messages, answered.messageId);
  const msg = i < 0 ? undefined : messages[i];
  if (!msg || msg.answered?.some((a) => a.interruptId === answered.interruptId)) return messages;
  const { messageId: _m, ...record } = answered;
  return replaceAt(messages, i, { ...msg, answered: [...(msg.answered ?? []), record] });
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
            ...((s.usage ?? prev.usage) ? { usage: s.usage ?? prev.usage } : {}),
            ...((s.forkedFrom ?? prev.forkedFrom) ? { forkedFrom: s.forkedFrom ?? prev.forkedFrom } : {}),
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
      const next = replaceAt(state.messages, i, { ...info, blocks: prev.blocks });
      shapes.delete(next);
      return { ...state, messages: next };
    }
    case "message.removed": {
      const i = findMessageIndex(state.messages, event.messageId);
      if (i < 0) return state;
      return { ...state, messages: removeAt(state.messages, i) };
    }
    case "block.updated": {
      let messages = state.messages;
      let mi = findMessageIndex(messages, event.messageId);
      if (mi < 0) {
        messages = insertMessage(messages, placeholderMessage(event.messageId, state.session?.id ?? ""));
        mi = findMessageIndex(messages, event.messageId);
      }
      const m = messages[mi]!;
      const block: Block =
        event.block.kind === "tool" ? approvalStatus(event.block, state.interrupts, state.session?.id) : event.block;
      const bi = findBlockIndex(m.blocks, block.id);
      const created = messages !== state.messages;
      let blocks: Block[];
      if (bi >= 0) blocks = replaceAt(m.blocks, bi, block);
      else {
        blocks = writable(m.blocks);
        blocks.push(block);
        indexes.get(blocks)?.set(block.id, blocks.length - 1);
      }
      const next = replaceAt(messages, mi, { ...m, blocks });
      if (!created) keepShape(state.messages, next, mi);
      return { ...state, messages: next };
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
      const next = replaceAt(state.messages, mi, { ...m, blocks: replaceAt(m.blocks, bi, nb) });
      keepShape(state.messages, next, mi);
      return { ...state, messages: next };
    }
    case "block.removed": {
      const mi = findMessageIndex(state.messages, event.messageId);
      if (mi < 0) return state;
      const m = state.messages[mi]!;
      const bi = findBlockIndex(m.blocks, event.blockId);
      if (bi < 0) return state;
      const blocks = removeAt(m.blocks, bi);
      const next = replaceAt(state.messages, mi, { ...m, blocks });
      keepShape(state.messages, next, mi);
      return { ...state, messages: next };
    }
    case "interrupt.requested": {
      const it = event.interrupt;
      const existing = state.interrupts.findIndex((x) => x.id === it.id);
      const interrupts = existing < 0 ? [...state.interrupts, it] : replaceAt(state.interrupts, existing, it);
      let messages = state.messages;
      const sid = state.session?.id;
      messages = updateTools(messages, asks(it, sid), (b) =>
        b.status === "running" || b.status === "pending" ? { ...b, status: "awaiting-approval" } : b,
      );
      const session = state.session
        ? withStatus(
            state.session,
            state.session.status === "idle" ? "busy" : state.session.status,
            state.session.statusDetail,
            interrupts.length,
          )
        : null;
      return { ...state, interrupts, messages, session };
    }
    case "interrupt.resolved": {
      const it = state.interrupts.find((x) => x.id === event.interruptId);
      const answeredIn = withAnswer(state.messages, event.answered);
      if (!it) return answeredIn === state.messages ? state : { ...state, messages: answeredIn };
      const interrupts = state.interrupts.filter((x) => x.id !== event.interruptId);
      let messages = answeredIn;
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

/**
 * Applies a batch of events. Equal to folding `apply` over them, but arrays copied during the batch
 * are written in place by the batch's later events, so a frame of deltas copies the messages array
 * once instead of once per delta.
 */
export function applyAll(state: SessionState, events: readonly TimelineEvent[]): SessionState {
  if (events.length < 2 || draft) {
    let s = state;
    for (const e of events) s = apply(s, e);
    return s;
  }
  draft = new WeakSet();
  try {
    let s = state;
    for (const e of events) s = apply(s, e);
    return s;
  } finally {
    draft = null;
  }
}
