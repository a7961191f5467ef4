import { describe, expect, it } from "vitest";
import type { SseSink } from "../hub/sse";
import { RemoteFeeds } from "./remote-feeds";
import type { RemoteSession } from "./remote-session";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const frame = (seq: number) => encoder.encode(`id: ${seq}\ndata: {"seq":${seq}}\n\n`);

/** An owner's stream the test drives: `emit` sends a frame, `end` closes it. */
function owner() {
  const opened: (number | undefined)[] = [];
  const streams: { sink: SseSink; lost: () => void }[] = [];
  return {
    opened,
    open: async (after: number | undefined): Promise<RemoteSession> => {
      opened.push(after);
      return {
        attach(sink, lost) {
          streams.push({ sink, lost });
          return () => undefined;
        },
      };
    },
    emit: (seq: number) => {
      for (const s of streams) s.sink.write(frame(seq));
    },
    end: () => {
      for (const s of streams) s.lost();
    },
  };
}

function reader() {
  const seqs: number[] = [];
  let lost = false;
  const sink: SseSink = {
    closed: false,
    write(f) {
      seqs.push(Number(/^id: (\d+)/.exec(decoder.decode(f))?.[1]));
      return true;
    },
    close() {},
  };
  return { seqs, sink, lost: () => (lost = true), wasLost: () => lost };
}

describe("remote feeds: one stream from the owner per session on a replica that does not run it", () => {
  it("shares one upstream, replays a known cursor from its ring, gives an unknown cursor its own stream, and tells everyone when the owner goes", async () => {
    const o = owner();
    const feeds = new RemoteFeeds();
    const a = reader();
    (await feeds.source("b", "s", 10, o.open)).attach(a.sink, a.lost);
    o.emit(11);
    o.emit(12);
    const b = reader();
    (await feeds.source("b", "s", 11, o.open)).attach(b.sink, b.lost);
    o.emit(13);
    expect(o.opened).toEqual([10]); // one upstream for both
    expect(a.seqs).toEqual([11, 12, 13]);
    expect(b.seqs).toEqual([12, 13]);
    // A cursor from before the feed started: a stream of its own from the owner.
    const c = reader();
    (await feeds.source("b", "s", 5, o.open)).attach(c.sink, c.lost);
    expect(o.opened).toEqual([10, 5]);
    // The owner goes away: every subscriber is told, and the next one starts a new feed.
    o.end();
    expect(a.wasLost() && b.wasLost() && c.wasLost()).toBe(true);
    expect(feeds.size).toBe(0);
    const d = reader();
    (await feeds.source("b", "s", 13, o.open)).attach(d.sink, d.lost);
    expect(o.opened).toEqual([10, 5, 13]);
  });
});
