import { describe, expect, it } from "vitest";
import type { Session, WireEvent } from "@/lib/model";
import { apply, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { SessionChannel } from "./session-channel";
import { RingLog } from "./ring-log";
import type { SseSink } from "./sse";

const session: Session = { id: "s", backendId: "b", title: "T", createdAt: 1, updatedAt: 1, status: "idle" };
const decoder = new TextDecoder();

function sink(limit = Infinity, replayBudget?: number): SseSink & { events: WireEvent[] } {
  const events: WireEvent[] = [];
  let closed = false;
  return {
    events,
    ...(replayBudget !== undefined ? { replayBudget } : {}),
    get closed() {
      return closed;
    },
    write(frame) {
      if (events.length >= limit) {
        closed = true;
        return false;
      }
      const text = decoder.decode(frame);
      const data = text.split("\n").find((l) => l.startsWith("data: "))!;
      events.push(JSON.parse(data.slice(6)) as WireEvent);
      return true;
    },
    close() {
      closed = true;
    },
  };
}

const text = (i: number) => ({
  type: "block.delta" as const,
  messageId: "m",
  blockId: "p",
  field: "text" as const,
  delta: String(i),
});

describe("RingLog", () => {
  it("keeps the newest items and finds those after a seq", () => {
    const r = new RingLog<{ seq: number }>(3);
    for (let i = 1; i <= 5; i++) r.push({ seq: i });
    expect(r.firstSeq).toBe(3);
    expect(r.after(3).map((x) => x.seq)).toEqual([4, 5]);
    expect(r.after(0).map((x) => x.seq)).toEqual([3, 4, 5]);
    expect(r.after(5)).toEqual([]);
  });
});

describe("SessionChannel", () => {
  it("gives growing seqs and fans out to subscribers", () => {
    const ch = new SessionChannel("b", "s", { ...emptyState, session }, { seqBase: 100 });
    const a = sink();
    ch.subscribe(a, undefined);
    ch.publish(text(1));
    ch.publish(text(2));
    expect(a.events.map((e) => e.seq)).toEqual([101, 102]);
    expect(ch.snapshot().seq).toBe(102);
  });

  it("replays exactly the events after Last-Event-ID", () => {
    const ch = new SessionChannel("b", "s", { ...emptyState, session }, { seqBase: 0 });
    for (let i = 1; i <= 10; i++) ch.publish(text(i));
    const late = sink();
    ch.subscribe(late, 6);
    expect(late.events.map((e) => e.seq)).toEqual([7, 8, 9, 10]);
    ch.publish(text(11));
    expect(late.events.map((e) => e.seq)).toEqual([7, 8, 9, 10, 11]);
    const current = sink();
    ch.subscribe(current, 11);
    expect(current.events).toEqual([]);
  });

  it("sends stream.reset when the seq is no longer held or unknown", () => {
    const ch = new SessionChannel("b", "s", { ...emptyState, session }, { seqBase: 0, capacity: 5 });
    for (let i = 1; i <= 20; i++) ch.publish(text(i));
    const old = sink();
    ch.subscribe(old, 3);
    expect(old.events[0]!.type).toBe("stream.reset");
    const future = sink();
    ch.subscribe(future, 999);
    expect(future.events[0]!.type).toBe("stream.reset");
    const edge = sink();
    ch.subscribe(edge, 15); // oldest held is 16: 15 is exactly resumable
    expect(edge.events.map((e) => e.seq)).toEqual([16, 17, 18, 19, 20]);
  });

  it("drops a subscriber that cannot keep up without affecting others", () => {
    const ch = new SessionChannel("b", "s", { ...emptyState, session }, { seqBase: 0 });
    const slow = sink(3);
    const fast = sink();
    ch.subscribe(slow, undefined);
    ch.subscribe(fast, undefined);
    for (let i = 1; i <= 10; i++) ch.publish(text(i));
    expect(ch.subscriberCount).toBe(1);
    expect(fast.events).toHaveLength(10);
    expect(slow.events).toHaveLength(3);
  });

  it("sends stream.reset instead of a backlog bigger than the subscriber may owe (no endless drop-and-resume)", () => {
    const ch = new SessionChannel("b", "s", { ...emptyState, session }, { seqBase: 0 });
    for (let i = 1; i <= 50; i++) ch.publish(text(i));
    const small = sink(Infinity, 1_000_000);
    ch.subscribe(small, 10);
    expect(small.events.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => 11 + i));
    const tight = sink(Infinity, 500);
    ch.subscribe(tight, 10);
    expect(tight.events.map((e) => e.type)).toEqual(["stream.reset"]);
    ch.publish(text(51));
    expect(tight.events.at(-1)?.seq).toBe(51);
  });

  it("materializes its state lazily: a snapshot at any point equals every published event applied in order", () => {
    const start: SessionState = {
      ...emptyState,
      session,
      messages: [
        { id: "m", sessionId: "s", role: "assistant", createdAt: 1, blocks: [{ id: "p", kind: "text", text: "" }] },
      ],
    };
    const ch = new SessionChannel("b", "s", start, { seqBase: 0 });
    let expected = start;
    for (let i = 1; i <= 700; i++) {
      const e = i % 97 === 0 ? { type: "session.status" as const, status: "busy" as const } : text(i);
      ch.publish(e);
      expected = apply(expected, e);
      if (i % 150 === 0 || i === 700) {
        const snap = ch.snapshot();
        expect(snap.seq).toBe(i);
        expect(snap.messages).toEqual(expected.messages);
        expect(snap.session.status).toBe(expected.session!.status);
      }
    }
    // A snapshot already handed out is never written by later events.
    const held = ch.snapshot();
    const textBefore = JSON.stringify(held.messages);
    for (let i = 0; i < 300; i++) ch.publish(text(i));
    expect(JSON.stringify(held.messages)).toBe(textBefore);
    expect((ch.state.messages[0]!.blocks[0] as { text: string }).text.endsWith("299")).toBe(true);
  });
});
