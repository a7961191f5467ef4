import { describe, expect, it } from "vitest";
import { redisPerFile } from "../../testkit/redis-per-file";
import type { Message, Session, WireEvent } from "@/lib/model";
import { until } from "@/testkit/until";
import { applyAll, stateFromSnapshot } from "@/lib/timeline/reducer";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import { Hub } from "../hub/hub";
import { RESUME_GAP } from "../hub/session-channel";
import type { SseSink } from "../hub/sse";
import { BackendLease } from "./lease";
import { RedisSessionJournal } from "./session-journal";

const { client } = redisPerFile();

const session: Session = { id: "s", backendId: "oc", title: "T", createdAt: 1, updatedAt: 1, status: "idle" };
const user: Message = {
  id: "u1",
  sessionId: "s",
  role: "user",
  createdAt: 1,
  blocks: [{ id: "u1-t", kind: "text", text: "hello" }],
};
const reply = (text: string): Message => ({
  id: "a1",
  sessionId: "s",
  role: "assistant",
  createdAt: 2,
  blocks: [{ id: "a1-t", kind: "text", text }],
});

const info = ({ blocks: _blocks, ...rest }: Message) => rest;

/** A backend whose loads answer what the agent has now. */
function backend(now: () => LoadedSession): BackendAdapter {
  return { loadSession: async () => structuredClone(now()) } as unknown as BackendAdapter;
}

/** Collects a subscriber's events. */
function collector(): SseSink & { events: WireEvent[] } {
  const events: WireEvent[] = [];
  const decoder = new TextDecoder();
  return {
    events,
    closed: false,
    write(frame: Uint8Array) {
      const data = /^data: (.*)$/m.exec(decoder.decode(frame))?.[1];
      if (data) events.push(JSON.parse(data) as WireEvent);
      return true;
    },
    close() {},
  };
}

describe("session logs in Redis Streams (real Redis)", () => {
  it("the next owner numbers on from the log, and a cursor from the last owner resumes with no gap, repeat or reset", async () => {
    const held: Record<string, BackendLease> = {};
    const lease = (replica: string) => {
      const l = new BackendLease(client(), "oc", replica, { acquired: () => {}, lost: () => {} }, 600);
      held[replica] = l;
      l.start();
      return l;
    };
    // A runs the backend: one turn done, a second one half streamed when A dies.
    const leaseA = lease("A");
    await until(() => leaseA.token !== undefined);
    const hubA = new Hub(() => backend(() => ({ session, messages: [], interrupts: [], todos: [] })), undefined, {
      journal: new RedisSessionJournal(client(), () => leaseA.token),
    });
    const chA = await hubA.open("oc", "s");
    const publish = (e: Parameters<Hub["publish"]>[2]) => hubA.publish("oc", "s", e);
    publish({ type: "message.updated", message: info(user) });
    publish({ type: "block.updated", messageId: "u1", block: user.blocks[0]! });
    publish({ type: "session.status", status: "busy" });
    publish({ type: "message.updated", message: info(reply("")) });
    publish({ type: "block.updated", messageId: "a1", block: { id: "a1-t", kind: "text", text: "" } });
    for (const d of ["The ", "answer ", "is "])
      publish({ type: "block.delta", messageId: "a1", blockId: "a1-t", field: "text", delta: d });
    // Let the journal's writes land, then A is gone (its lease is released, as on expiry).
    await until(async () => (await client().xlen("sb:log:oc:s")) === 8);
    const lastA = chA.seq;
    const seenOnA = (await client().xrange("sb:log:oc:s", "-", "+")).map(([, f]) => JSON.parse(f[1]!) as WireEvent);
    expect(seenOnA.map((e) => e.seq)).toEqual(Array.from({ length: 8 }, (_, i) => lastA - 7 + i));
    // Two more reach a browser on A, and A dies before it logs them.
    const browser = collector();
    chA.subscribe(browser, lastA);
    publish({ type: "block.delta", messageId: "a1", blockId: "a1-t", field: "text", delta: "42" });
    publish({ type: "block.delta", messageId: "a1", blockId: "a1-t", field: "text", delta: "." });
    void leaseA.stop(); // gives the lease up at once: the writes scheduled for the next tick are refused
    hubA.stop();
    expect(browser.events.map((e) => e.seq)).toEqual([lastA + 1, lastA + 2]);
    await until(async () => (await client().get("sb:lease:oc")) === null);
    expect(await client().xlen("sb:log:oc:s")).toBe(8);

    // B takes over; the agent finished the reply meanwhile, and the log never saw the end.
    const leaseB = lease("B");
    await until(() => leaseB.token !== undefined);
    const finished: LoadedSession = {
      session,
      messages: [user, reply("The answer is 42.")],
      interrupts: [],
      todos: [],
    };
    const hubB = new Hub(() => backend(() => finished), undefined, {
      journal: new RedisSessionJournal(client(), () => leaseB.token),
    });
    const chB = await hubB.open("oc", "s");
    expect(chB.seq).toBeGreaterThan(lastA);
    expect(chB.snapshot().messages).toEqual(finished.messages);

    // Browsers that saw all of A's logged events, five of them, or also the two A never logged:
    // each resumes on B from its cursor, with rising seqs, and ends where the agent is.
    const initial = stateFromSnapshot({ session, messages: [], interrupts: [], todos: [] });
    const seenAnywhere = [...seenOnA, ...browser.events];
    for (const cursor of [lastA, lastA - 3, lastA + 2]) {
      const resumed = collector();
      chB.subscribe(resumed, cursor);
      const seqs = resumed.events.map((e) => e.seq);
      expect(seqs[0]).toBeGreaterThan(cursor);
      expect(seqs.every((n, i) => i === 0 || n > seqs[i - 1]!)).toBe(true);
      // What the log held after the cursor, then B's own events (after the jump past A's unlogged ones).
      const logged = seqs.filter((n) => n <= lastA);
      expect(logged).toEqual(seenOnA.map((e) => e.seq).filter((n) => n > cursor));
      expect(seqs.filter((n) => n > lastA)[0]).toBe(lastA + RESUME_GAP + 1);
      expect(seqs.at(-1)).toBe(chB.seq);
      expect(resumed.events.some((e) => e.type === "stream.reset")).toBe(false);
      const atCursor = applyAll(
        initial,
        seenAnywhere.filter((e) => e.seq <= cursor),
      );
      expect(applyAll(atCursor, resumed.events).messages).toEqual(finished.messages);
    }
    // A cursor older than the log is told to reload.
    const stale = collector();
    chB.subscribe(stale, 5);
    expect(stale.events[0]?.type).toBe("stream.reset");
    hubB.stop();
    await leaseB.stop();
  });
});
