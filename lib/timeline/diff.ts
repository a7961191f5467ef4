/**
 * `diffStates(old, fresh)` gives the timeline events that turn `old` into `fresh`. Adapters reload a
 * session from its backend after an upstream disconnect and the hub publishes this diff, so a
 * backend without replay (OpenCode's `/event`) still loses nothing (docs/architecture.md, the OpenCode adapter).
 */
import type { Block, Message, TimelineEvent } from "../model";
import type { SessionState } from "./reducer";
import { reportedStatus } from "./selectors";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function infoOf(m: Message) {
  const { blocks: _blocks, ...info } = m;
  return info;
}

export function diffStates(old: SessionState, fresh: SessionState): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  if (fresh.session) {
    if (
      !old.session ||
      !same({ ...old.session, status: 0, statusDetail: 0 }, { ...fresh.session, status: 0, statusDetail: 0 })
    ) {
      out.push({ type: "session.updated", session: fresh.session });
    }
  }

  const freshIds = new Set(fresh.messages.map((m) => m.id));
  // Only messages inside the freshly loaded window can be judged gone; older pages were not reloaded.
  const oldest = fresh.messages[0]?.createdAt ?? Number.NEGATIVE_INFINITY;
  for (const m of old.messages) {
    if (!freshIds.has(m.id) && m.createdAt >= oldest) out.push({ type: "message.removed", messageId: m.id });
  }
  const oldById = new Map(old.messages.map((m) => [m.id, m]));
  for (const m of fresh.messages) {
    const prev = oldById.get(m.id);
    if (!prev || !same(infoOf(prev), infoOf(m))) out.push({ type: "message.updated", message: infoOf(m) });
    const prevBlocks = new Map<string, Block>((prev?.blocks ?? []).map((b) => [b.id, b]));
    const freshBlockIds = new Set(m.blocks.map((b) => b.id));
    for (const b of prev?.blocks ?? []) {
      if (!freshBlockIds.has(b.id)) out.push({ type: "block.removed", messageId: m.id, blockId: b.id });
    }
    for (const b of m.blocks) {
      const pb = prevBlocks.get(b.id);
      if (!pb || !same(pb, b)) out.push({ type: "block.updated", messageId: m.id, block: b });
    }
  }

  const freshInterrupts = new Set(fresh.interrupts.map((i) => i.id));
  const oldInterrupts = new Set(old.interrupts.map((i) => i.id));
  for (const i of old.interrupts) {
    if (!freshInterrupts.has(i.id))
      out.push({ type: "interrupt.resolved", interruptId: i.id, outcome: "resolved-elsewhere" });
  }
  for (const i of fresh.interrupts) {
    if (!oldInterrupts.has(i.id)) out.push({ type: "interrupt.requested", interrupt: i });
  }
  if (!same(old.todos, fresh.todos)) out.push({ type: "todo.updated", todos: fresh.todos });
  if (
    fresh.session &&
    (!old.session ||
      old.session.status !== fresh.session.status ||
      old.session.statusDetail !== fresh.session.statusDetail)
  ) {
    out.push({
      type: "session.status",
      status: reportedStatus(fresh.session.status),
      ...(fresh.session.statusDetail ? { detail: fresh.session.statusDetail } : {}),
    });
  }
  return out;
}
