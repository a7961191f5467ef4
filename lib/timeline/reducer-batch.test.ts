import { describe, expect, it } from "vitest";
import type { Message, Session, TimelineEvent } from "../model";
import { coalesceDeltas } from "./coalesce";
import { apply, applyAll, emptyState, findMessageIndex, messagesShape, type SessionState } from "./reducer";

const session: Session = { id: "s1", backendId: "b", title: "T", createdAt: 1, updatedAt: 1, status: "busy" };

function longState(n: number): SessionState {
  const messages: Message[] = [];
  for (let i = 0; i < n; i++) {
    messages.push({
      id: `m${String(i).padStart(5, "0")}`,
      sessionId: "s1",
      role: i % 2 ? "assistant" : "user",
      createdAt: i * 10,
      blocks: [
        { id: `p${i}-a`, kind: "text", text: `message ${i}` },
        { id: `p${i}-b`, kind: "reasoning", text: "" },
      ],
    });
  }
  return { ...emptyState, session, messages };
}

const fold = (s: SessionState, events: readonly TimelineEvent[]) => events.reduce(apply, s);
const delta = (mi: number, block: "a" | "b", text: string): TimelineEvent => ({
  type: "block.delta",
  messageId: `m${String(mi).padStart(5, "0")}`,
  blockId: `p${mi}-${block}`,
  field: "text",
  delta: text,
});

/** A deterministic mix of every event kind that touches messages, in a long session. */
function mixedEvents(seed: number, count: number, n: number): TimelineEvent[] {
  let x = seed;
  const rnd = (k: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % k;
  };
  const out: TimelineEvent[] = [];
  let next = n;
  for (let i = 0; i < count; i++) {
    const r = rnd(10);
    const mi = r < 6 ? n - 1 - rnd(3) : n - 5 + rnd(5); // the tail is never removed: no placeholders (they are stamped with the clock)
    if (r < 6) out.push(delta(mi, rnd(2) ? "a" : "b", `t${i} `));
    else if (r === 6)
      out.push({
        type: "message.updated",
        message: {
          id: `m${String(next).padStart(5, "0")}`,
          sessionId: "s1",
          role: "assistant",
          createdAt: next++ * 10,
        },
      });
    else if (r === 7)
      out.push({
        type: "message.updated",
        message: { id: `mx${i}`, sessionId: "s1", role: "assistant", createdAt: rnd(n) * 10 + 5 },
      });
    else if (r === 8)
      out.push({
        type: "block.updated",
        messageId: `m${String(mi).padStart(5, "0")}`,
        block: { id: `q${i}`, kind: "text", text: "new" },
      });
    else out.push({ type: "message.removed", messageId: `m${String(rnd(n - 5)).padStart(5, "0")}` });
  }
  return out;
}

describe("reducer batches", () => {
  it("applyAll equals folding apply, and never mutates its input", () => {
    const base = longState(300);
    const frozen = JSON.stringify(base);
    for (const seed of [1, 2, 3, 4, 5]) {
      const events = mixedEvents(seed, 400, 300);
      const expected = fold(base, events);
      expect(applyAll(base, events)).toEqual(expected);
      expect(applyAll(base, coalesceDeltas(events))).toEqual(expected);
      // In frames, as the browser applies them.
      let s = base;
      for (let i = 0; i < events.length; i += 7) s = applyAll(s, coalesceDeltas(events.slice(i, i + 7)));
      expect(s).toEqual(expected);
    }
    expect(JSON.stringify(base)).toBe(frozen);
  });

  it("keeps earlier states intact when a batch writes its private copies in place", () => {
    const base = longState(50);
    const first = applyAll(base, [delta(49, "a", "x"), delta(49, "a", "y")]);
    const second = applyAll(first, [delta(49, "a", "z"), delta(48, "b", "w")]);
    expect(first.messages[49]!.blocks[0]).toMatchObject({ text: "message 49xy" });
    expect(second.messages[49]!.blocks[0]).toMatchObject({ text: "message 49xyz" });
    expect(first.messages[48]!.blocks[1]).toMatchObject({ text: "" });
    expect(first.messages).not.toBe(second.messages);
    // Untouched messages keep their identity, so their memoized views do not re-render.
    expect(second.messages[10]).toBe(base.messages[10]);
  });

  it("finds messages by id after inserts and removals", () => {
    let s = longState(100);
    s = apply(s, { type: "message.removed", messageId: "m00010" });
    s = apply(s, {
      type: "message.updated",
      message: { id: "m00004x", sessionId: "s1", role: "assistant", createdAt: 45 },
    });
    for (const [i, m] of s.messages.entries()) expect(findMessageIndex(s.messages, m.id)).toBe(i);
    expect(findMessageIndex(s.messages, "m00010")).toBe(-1);
  });

  it("keeps the messages' shape token across deltas and renews it on structural changes", () => {
    const base = longState(20);
    const shape = messagesShape(base.messages);
    const streamed = applyAll(base, [delta(19, "a", "x"), delta(19, "b", "y")]);
    expect(messagesShape(streamed.messages)).toBe(shape);
    const single = apply(streamed, delta(19, "a", "z"));
    expect(messagesShape(single.messages)).toBe(shape);
    const added = applyAll(single, [
      delta(19, "a", "x"),
      { type: "message.updated", message: { id: "m99999", sessionId: "s1", role: "user", createdAt: 10_000 } },
    ]);
    expect(messagesShape(added.messages)).not.toBe(shape);
    const userEdit = apply(base, delta(18, "a", "typed"));
    expect(messagesShape(userEdit.messages)).not.toBe(shape);
  });
});

describe("coalesceDeltas", () => {
  it("merges deltas of one block across deltas of other blocks, not across other events", () => {
    const events: TimelineEvent[] = [
      delta(1, "a", "he"),
      delta(1, "b", "th"),
      delta(1, "a", "llo"),
      delta(1, "b", "ink"),
      { type: "block.updated", messageId: "m00001", block: { id: "p1-a", kind: "text", text: "reset" } },
      delta(1, "a", "!"),
      delta(1, "a", "?"),
    ];
    expect(coalesceDeltas(events)).toEqual([
      delta(1, "a", "hello"),
      delta(1, "b", "think"),
      events[4],
      delta(1, "a", "!?"),
    ]);
    expect(coalesceDeltas([])).toEqual([]);
  });
});
