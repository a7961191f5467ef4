/**
 * Merges the text deltas of one batch (the events `lib/client/session-store.ts` applies per
 * animation frame) so the reducer sees one delta per streaming block and field instead of one per
 * token. Pure; `applyAll(s, coalesceDeltas(events))` equals `applyAll(s, events)`.
 */
import type { TimelineEvent } from "../model";

type Delta = Extract<TimelineEvent, { type: "block.delta" }>;

/**
 * A delta joins the latest earlier delta of the same message, block and field when only deltas
 * (of other blocks) came in between: deltas to different blocks commute, anything else (a block
 * update, a removal) is a barrier that keeps the order exact.
 */
export function coalesceDeltas(events: readonly TimelineEvent[]): TimelineEvent[] {
  if (events.length < 2) return events.slice();
  const out: TimelineEvent[] = [];
  /** Index in `out` of the open delta per block and field, since the last barrier. */
  let open = new Map<string, number>();
  for (const e of events) {
    if (e.type !== "block.delta") {
      if (open.size) open = new Map();
      out.push(e);
      continue;
    }
    const key = `${e.messageId}\u0000${e.blockId}\u0000${e.field}`;
    const at = open.get(key);
    if (at === undefined) {
      open.set(key, out.length);
      out.push(e);
    } else {
      const prev = out[at] as Delta;
      out[at] = { ...prev, delta: prev.delta + e.delta };
    }
  }
  return out;
}
