/**
 * A derived view that must follow every block change (not only the list's shape) yet stay cheap per
 * frame on a long session. It keeps, per shape token (`messagesShape`), the message objects it last
 * saw at each position and what it derived from each; the next call re-derives only the messages
 * whose identity changed — the reducer gives a new identity exactly to the messages an
 * event touched — so a frame of deltas costs one pass of pointer comparisons, the same order as the
 * reducer's one copy of the array, instead of a walk over every block of the session.
 */
import type { Message } from "../model";
import { messagesShape } from "./reducer";

interface Seen {
  /** The message object last seen at each position, and the subagent ids derived from it. */
  messages: (Message | undefined)[];
  ids: (readonly string[])[];
}

const NONE: readonly string[] = [];
const seenByShape = new WeakMap<object, Seen>();

function childrenOf(m: Message): readonly string[] {
  let ids: string[] | undefined;
  for (const b of m.blocks) if (b.kind === "tool" && b.childSessionId) (ids ??= []).push(b.childSessionId);
  return ids ?? NONE;
}

/** The subagent sessions the loaded messages' tool blocks started, in order of first mention. */
export function childSessionIds(messages: readonly Message[]): string[] {
  const token = messagesShape(messages);
  let seen = seenByShape.get(token);
  if (!seen || seen.messages.length !== messages.length) {
    seen = {
      messages: new Array<Message | undefined>(messages.length),
      ids: new Array<readonly string[]>(messages.length),
    };
    seenByShape.set(token, seen);
  }
  const out = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (seen.messages[i] !== m) {
      seen.messages[i] = m;
      seen.ids[i] = childrenOf(m);
    }
    for (const id of seen.ids[i]!) out.add(id);
  }
  return [...out];
}
