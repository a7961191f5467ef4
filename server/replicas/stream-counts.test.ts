import { describe, expect, it } from "vitest";
import { redisPerFile } from "../../testkit/redis-per-file";
import { StreamQuota } from "../shares/stream-quota";
import { SharedStreamCounts } from "./stream-counts";

const { client } = redisPerFile();

describe("the share stream quota over every replica (real Redis)", () => {
  it("a client's streams are counted wherever the load balancer sent them, and in all", async () => {
    const replica = (id: string) => {
      const counts: SharedStreamCounts = new SharedStreamCounts(client(), id, () => quota.counts(), 60_000);
      const quota: StreamQuota = new StreamQuota(5, 8, (c) => counts.elsewhere(c));
      return { quota, counts };
    };
    const a = replica("A");
    const b = replica("B");
    const onA = [1, 2, 3].map(() => a.quota.acquire("198.51.100.1"));
    const onB = [1, 2].map(() => b.quota.acquire("198.51.100.1"));
    expect([...onA, ...onB].every((r) => r.ok)).toBe(true);
    await a.counts.tick();
    await b.counts.tick();
    await a.counts.tick(); // each has read the other's counts
    expect(a.quota.acquire("198.51.100.1")).toEqual({ ok: false, scope: "client" });
    expect(b.quota.acquire("198.51.100.1")).toEqual({ ok: false, scope: "client" });
    // Another client: up to the total over both replicas (8), 5 being open.
    expect([1, 2, 3].map(() => b.quota.acquire("198.51.100.2").ok)).toEqual([true, true, true]);
    await b.counts.tick();
    await a.counts.tick();
    expect(a.quota.acquire("198.51.100.3")).toEqual({ ok: false, scope: "total" });
    // Streams closed on B free slots on A once B has said so.
    for (const r of onB) if (r.ok) r.release();
    await b.counts.tick();
    await a.counts.tick();
    expect(a.quota.acquire("198.51.100.1").ok).toBe(true);
    // A replica that stops takes its counts with it.
    await b.counts.stop();
    await a.counts.tick();
    expect(a.counts.elsewhere()).toBe(0);
    await a.counts.stop();
  });
});
