import { describe, expect, it } from "vitest";
import { createParser } from "eventsource-parser";
import type { Session, WireEvent } from "@/lib/model";
import { stateFromSnapshot } from "@/lib/timeline/reducer";
import { MuxRegistry, MuxStream } from "./mux";
import { SessionChannel } from "./session-channel";
import type { SseSink } from "./sse";

const session: Session = { id: "s", backendId: "b", title: "T", createdAt: 1, updatedAt: 1, status: "idle" };
const delta = (i: number) => ({
  type: "block.delta" as const,
  messageId: "m",
  blockId: "p",
  field: "text" as const,
  delta: String(i),
});

/** A sink that parses what it is written as SSE, as the browser does. */
function browser(limit = Infinity) {
  const frames: { event: string | undefined; id: string | undefined; data: string }[] = [];
  let closed = false;
  const parser = createParser({ onEvent: (e) => frames.push({ event: e.event, id: e.id, data: e.data }) });
  const decoder = new TextDecoder();
  const sink: SseSink = {
    get closed() {
      return closed;
    },
    replayBudget: 1_000_000,
    write(frame) {
      if (closed) return false;
      if (frames.length >= limit) {
        closed = true;
        return false;
      }
      parser.feed(decoder.decode(frame));
      return true;
    },
    close() {
      closed = true;
    },
  };
  const of = (key: string) => frames.filter((f) => f.event === key).map((f) => JSON.parse(f.data) as WireEvent);
  return { sink, frames, of };
}

function channel() {
  return new SessionChannel("b", "s", stateFromSnapshot({ session, messages: [], interrupts: [], todos: [] }), {
    seqBase: 100,
  });
}

describe("MuxStream", () => {
  it("opens with its id and carries each subscription's frames under its key", () => {
    const b = browser();
    const stream = new MuxStream(b.sink);
    expect(b.frames[0]).toEqual({ event: "mux.open", id: undefined, data: JSON.stringify({ streamId: stream.id }) });
    const one = channel();
    const two = new SessionChannel(
      "b",
      "t",
      stateFromSnapshot({ session: { ...session, id: "t" }, messages: [], interrupts: [], todos: [] }),
      { seqBase: 500 },
    );
    stream.add("k1", "one", (sink) => one.subscribe(sink, 100));
    stream.add("k2", "two", (sink) => two.subscribe(sink, 500));
    one.publish(delta(1));
    two.publish(delta(2));
    one.publish(delta(3));
    expect(b.of("k1").map((e) => [e.seq, (e as { delta: string }).delta])).toEqual([
      [101, "1"],
      [102, "3"],
    ]);
    expect(b.of("k2").map((e) => e.seq)).toEqual([501]);
    // The SSE id of each frame is its own session's seq.
    expect(b.frames.filter((f) => f.event === "k1").map((f) => f.id)).toEqual(["101", "102"]);
  });

  it("replays a new subscription from its cursor, or resets it when the cursor is not held", () => {
    const ch = channel();
    ch.publish(delta(1));
    ch.publish(delta(2));
    const b = browser();
    const stream = new MuxStream(b.sink);
    stream.add("k1", "s", (sink) => ch.subscribe(sink, 101));
    stream.add("k2", "s", (sink) => ch.subscribe(sink, 7));
    expect(b.of("k1").map((e) => e.seq)).toEqual([102]);
    expect(b.of("k2").map((e) => e.type)).toEqual(["stream.reset"]);
  });

  it("detaches a removed subscription and tells the browser when the source ends one", () => {
    const ch = channel();
    const b = browser();
    const stream = new MuxStream(b.sink);
    stream.add("k1", "s", (sink) => ch.subscribe(sink, 100));
    expect(ch.subscriberCount).toBe(1);
    expect(stream.holds("k1", "s")).toBe(true);
    expect(stream.holds("k1", "other")).toBe(false);
    stream.remove("k1");
    expect(ch.subscriberCount).toBe(0);
    ch.publish(delta(1));
    expect(b.of("k1")).toEqual([]);

    stream.add("k2", "s", (sink) => ch.subscribe(sink, ch.seq));
    ch.closeAll(); // the session was deleted
    expect(b.frames.at(-1)).toEqual({ event: "mux.closed", id: undefined, data: JSON.stringify({ key: "k2" }) });
    expect(stream.keys()).toEqual([]);
  });

  it("is one subscriber with one bounded queue: when the browser falls behind, every subscription goes", () => {
    const one = channel();
    const two = channel();
    const b = browser(4);
    const stream = new MuxStream(b.sink);
    stream.add("k1", "one", (sink) => one.subscribe(sink, one.seq));
    stream.add("k2", "two", (sink) => two.subscribe(sink, two.seq));
    for (let i = 0; i < 5; i++) {
      one.publish(delta(i));
      two.publish(delta(i));
    }
    expect(stream.closed).toBe(true);
    stream.dispose();
    expect(one.subscriberCount + two.subscriberCount).toBe(0);
  });
});

describe("MuxRegistry", () => {
  it("finds open streams by id, forgets closed ones and caps how many are open", () => {
    const reg = new MuxRegistry(2);
    const a = reg.open(browser().sink)!;
    const closing = browser();
    const b = reg.open(closing.sink)!;
    expect(reg.open(browser().sink)).toBeUndefined();
    expect(reg.get(a.id)).toBe(a);
    closing.sink.close();
    expect(reg.get(b.id)).toBeUndefined();
    expect(reg.size).toBe(1);
    reg.close(a.id);
    expect(reg.size).toBe(0);
  });
});
