/**
 * The Redis cost per published delta (issue 31), beside the part it measures as its tests are: a
 * delta published into an in-process hub channel (the single-process baseline, measured in the same
 * run) against the same delta appended to the session's Redis Stream by the owner (fenced by its lease,
 * one Lua call per append, alone or 16 at a time), and the delivery latency from the owner's append to
 * another replica's follower (XREAD BLOCK). A real redis-server on loopback (testkit/redis-server.ts).
 *
 * `npm run bench -- replicas` runs this file in a process of its own (bench/replicas.ts), which also
 * keeps its µs figures clear of the other benches' compiled code; it prints its figures as one JSON
 * line.
 */
import { Redis } from "ioredis";
import type { Message, Session, TimelineEvent } from "../../lib/model";
import { startRedis } from "../../testkit/redis-server";
import { SessionChannel } from "../hub/session-channel";
import { SessionLog } from "./session-log";

const session: Session = { id: "s", backendId: "b", title: "bench", createdAt: 0, updatedAt: 0, status: "busy" };
const message: Message = {
  id: "m",
  sessionId: "s",
  role: "assistant",
  createdAt: 1,
  blocks: [{ id: "p", kind: "text", text: "" }],
};
const delta = (i: number): TimelineEvent => ({
  type: "block.delta",
  messageId: "m",
  blockId: "p",
  field: "text",
  delta: `token${i} `,
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

async function measure(n = 20_000) {
  const ch = new SessionChannel(
    "b",
    "s",
    { session, messages: [message], interrupts: [], todos: [] },
    { capacity: 10_000 },
  );
  ch.subscribe({ write: () => true, close: () => undefined, closed: false }, undefined);
  let t0 = performance.now();
  for (let i = 0; i < n; i++) ch.publish(delta(i));
  const hubUsPerDelta = ((performance.now() - t0) * 1000) / n;

  const server = await startRedis();
  const redis = new Redis(server.url);
  const reader = new Redis(server.url);
  try {
    await redis.set("sb:lease:b", "bench:1");
    const single = new SessionLog(redis, "b", "single");
    t0 = performance.now();
    for (let i = 1; i <= n; i++) {
      const d = delta(i);
      await single.append("bench:1", [{ seq: i, frame: JSON.stringify({ ...d, seq: i }) }]);
    }
    const redisUsPerDelta = ((performance.now() - t0) * 1000) / n;

    const batched = new SessionLog(redis, "b", "batched");
    t0 = performance.now();
    for (let i = 1; i <= n; i += 16) {
      const items = Array.from({ length: Math.min(16, n - i + 1) }, (_, k) => ({
        seq: i + k,
        frame: JSON.stringify({ ...delta(i + k), seq: i + k }),
      }));
      await batched.append("bench:1", items);
    }
    const redisBatchedUsPerDelta = ((performance.now() - t0) * 1000) / n;

    const followed = new SessionLog(redis, "b", "followed");
    const sentAt = new Map<number, number>();
    const latencies: number[] = [];
    const stop = followed.follow(reader, 0, (batch) => {
      const now = performance.now();
      for (const e of batch) latencies.push(now - (sentAt.get(e.seq) ?? now));
    });
    await new Promise((r) => setTimeout(r, 100));
    const count = 2000;
    for (let i = 1; i <= count; i++) {
      sentAt.set(i, performance.now());
      await followed.append("bench:1", [{ seq: i, frame: JSON.stringify({ ...delta(i), seq: i }) }]);
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 10));
    }
    const deadline = Date.now() + 10_000;
    while (latencies.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    stop();
    return {
      hubUsPerDelta,
      redisUsPerDelta,
      redisBatchedUsPerDelta,
      followLatency: { p50: pct(latencies, 50), p99: pct(latencies, 99) },
    };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

console.log(JSON.stringify(await measure()));
