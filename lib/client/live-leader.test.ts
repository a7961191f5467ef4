import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LiveSubscription } from "../api";
import { LiveLeader, TAKEOVER_SETTLE_MS } from "./live-leader";
import { specId, type LiveMessage, type LiveSpec } from "./live-protocol";
import type { SseClientOptions } from "./sse-client";

const A: LiveSpec = { type: "session", backendId: "b", sessionId: "a" };
const B: LiveSpec = { type: "session", backendId: "b", sessionId: "b" };
const G: LiveSpec = { type: "global" };
const want = (spec: LiveSpec, cursor?: number) => ({
  id: specId(spec),
  spec,
  ...(cursor !== undefined ? { cursor } : {}),
});
const ev = (seq: number) =>
  JSON.stringify({ type: "block.delta", messageId: "m", blockId: "p", field: "text", delta: String(seq), seq });

function harness(takeover = false) {
  const emitted: LiveMessage[] = [];
  const puts: { streamId: string; subs: Record<string, LiveSubscription> }[] = [];
  let sse: SseClientOptions | undefined;
  let reconnects = 0;
  const answers: Record<string, { ok: true } | { ok: false; status: number; code: string; message: string }> = {};
  const leader = new LiveLeader(
    {
      url: "/api/live",
      emit: (m) => emitted.push(m),
      connect: (opts) => {
        sse = opts;
        return { close() {}, reconnect: () => reconnects++, lastEventId: undefined };
      },
      put: async (streamId, subs) => {
        puts.push({ streamId, subs });
        const results = Object.fromEntries(Object.keys(subs).map((k) => [k, answers[k] ?? { ok: true as const }]));
        return { status: 200, body: { results } };
      },
    },
    takeover,
  );
  leader.start();
  const open = (streamId = "S1") => sse!.onEvent(JSON.stringify({ streamId }), undefined, "mux.open");
  const frame = (key: string, seq: number) => sse!.onEvent(ev(seq), String(seq), key);
  const ended = (key: string) => sse!.onEvent(JSON.stringify({ key }), undefined, "mux.closed");
  const keyOf = (spec: LiveSpec) => {
    const last = puts.at(-1)!.subs;
    return Object.keys(last).find(
      (k) => JSON.stringify({ ...last[k], after: undefined }) === JSON.stringify({ ...toSub(spec), after: undefined }),
    )!;
  };
  const frames = (to?: string) => emitted.flatMap((m) => (m.t === "frames" && m.to === to ? m.frames : []));
  return { leader, emitted, puts, open, frame, ended, keyOf, frames, answers, reconnects: () => reconnects };
}

function toSub(spec: LiveSpec): Record<string, unknown> {
  return spec.type === "session"
    ? { type: "session", backendId: spec.backendId, sessionId: spec.sessionId }
    : { ...spec };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

describe("LiveLeader", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("subscribes once per spec, from the lowest cursor of the tabs that follow it, and relays to every tab", async () => {
    const h = harness();
    h.leader.want("t1", [want(A, 10), want(G, 5)]);
    h.leader.want("t2", [want(A, 8)]);
    h.open();
    await settle();
    expect(h.puts).toHaveLength(1);
    const subs = Object.values(h.puts[0]!.subs);
    expect(subs).toHaveLength(2);
    expect(subs).toContainEqual({ type: "session", backendId: "b", sessionId: "a", after: 8 });
    expect(subs).toContainEqual({ type: "global", after: 5 });
    h.frame(h.keyOf(A), 11);
    await settle();
    expect(h.frames()).toEqual([[specId(A), ev(11), "11"]]);
  });

  it("replays what a late tab missed from its buffer, to that tab only, or resets it when the buffer does not reach back", async () => {
    const h = harness();
    h.leader.want("t1", [want(A, 10)]);
    h.open();
    await settle();
    const k = h.keyOf(A);
    for (let s = 11; s <= 14; s++) h.frame(k, s);
    await settle();
    h.leader.want("t2", [want(A, 12)]);
    expect(h.frames("t2").map((f) => f[2])).toEqual(["13", "14"]);
    h.leader.want("t3", [want(A, 3)]);
    expect(h.emitted.filter((m) => m.t === "reset" && m.to === "t3")).toHaveLength(1);
    // Already following: nothing is replayed again, and no second subscription is made.
    h.leader.want("t2", [want(A, 14)]);
    expect(h.frames("t2")).toHaveLength(2);
    await settle();
    expect(Object.keys(h.puts.at(-1)!.subs)).toEqual([k]);
  });

  it("drops what only a gone tab followed", async () => {
    const h = harness();
    h.leader.want("t1", [want(A, 1)]);
    h.leader.want("t2", [want(A, 1), want(B, 1)]);
    h.open();
    await settle();
    expect(Object.keys(h.puts.at(-1)!.subs)).toHaveLength(2);
    h.leader.forget(["t2"]);
    await settle();
    expect(Object.values(h.puts.at(-1)!.subs)).toEqual([{ type: "session", backendId: "b", sessionId: "a", after: 1 }]);
  });

  it("a new leader waits for the other tabs before subscribing, then resumes from the lowest cursor", async () => {
    const h = harness(true);
    h.leader.want("me", [want(A, 20)]);
    h.open();
    await settle();
    expect(h.puts).toHaveLength(0);
    h.leader.want("other", [want(A, 17)]);
    await vi.advanceTimersByTimeAsync(TAKEOVER_SETTLE_MS);
    expect(Object.values(h.puts[0]!.subs)).toEqual([{ type: "session", backendId: "b", sessionId: "a", after: 17 }]);
  });

  it("re-sends every subscription from the newest seq it relayed when the stream is reopened", async () => {
    const h = harness();
    h.leader.want("t1", [want(A, 10)]);
    h.open("S1");
    await settle();
    h.frame(h.keyOf(A), 11);
    h.frame(h.keyOf(A), 12);
    h.open("S2");
    await settle();
    expect(h.puts.at(-1)!.streamId).toBe("S2");
    expect(Object.values(h.puts.at(-1)!.subs)).toEqual([
      { type: "session", backendId: "b", sessionId: "a", after: 12 },
    ]);
  });

  it("passes on a subscription the server ended or refused", async () => {
    const h = harness();
    h.leader.want("t1", [want(A, 1), want(B, 1)]);
    h.open();
    await settle();
    const kA = h.keyOf(A);
    const kB = h.keyOf(B);
    h.answers[kB] = { ok: false, status: 404, code: "not_found", message: "gone" };
    h.leader.want("t1", [want(A, 1), want(B, 1), want(G, 1)]);
    await settle();
    expect(h.emitted).toContainEqual({ t: "error", id: specId(B), status: 404, message: "gone" });
    h.ended(kA);
    expect(h.emitted).toContainEqual({ t: "closed", id: specId(A) });
    // The tab reloads and follows again: a new subscription under a new key.
    h.leader.want("t1", [want(G, 1)]);
    h.leader.want("t1", [want(A, 30), want(G, 1)]);
    await settle();
    const last = h.puts.at(-1)!.subs;
    expect(Object.keys(last)).not.toContain(kA);
    expect(Object.values(last)).toContainEqual({ type: "session", backendId: "b", sessionId: "a", after: 30 });
  });
});
