/**
 * Derived views that must follow every block change (not only the list's shape) yet stay cheap per
 * frame on a long session. A view keeps, per shape token (`messagesShape`), the message objects it
 * last saw at each position and what it derived from each; the next call re-derives only the
 * messages whose identity changed — the reducer gives a new identity exactly to the messages an
 * event touched — so a frame of deltas costs one pass of pointer comparisons, the same order as the
 * reducer's one copy of the array, instead of a walk over every block of the session.
 */
import type { Message } from "../model";
import { messagesShape } from "./reducer";

interface PerMessage<T> {
  seen: (Message | undefined)[];
  values: T[];
}

/** `derive(m)` for each message, re-derived only where the message changed since the last call. */
function perMessage<T>(cache: WeakMap<object, PerMessage<T>>, messages: readonly Message[], derive: (m: Message) => T): readonly T[] {
  const token = messagesShape(messages);
  let c = cache.get(token);
  if (!c || c.seen.length !== messages.length) {
    c = { seen: new Array<Message | undefined>(messages.length), values: new Array<T>(messages.length) };
    cache.set(token, c);
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (c.seen[i] !== m) {
      c.seen[i] = m;
      c.values[i] = derive(m);
    }
  }
  return c.values;
}

const NONE: readonly string[] = [];
const childCache = new WeakMap<object, PerMessage<readonly string[]>>();

function childrenOf(m: Message): readonly string[] {
  let ids: string[] | undefined;
  for (const b of m.blocks) if (b.kind === "tool" && b.childSessionId) (ids ??= []).push(b.childSessionId);
  return ids ?? NONE;
}

/** The subagent sessions the loaded messages' tool blocks started, in order of first mention. */
export function childSessionIds(messages: readonly Message[]): string[] {
  const per = perMessage(childCache, messages, childrenOf);
  const out = new Set<string>();
  for (const ids of per) for (const id of ids) out.add(id);
  return [...out];
}
