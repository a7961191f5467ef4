import { describe, expect, it } from "vitest";
import { redisPerFile } from "../../testkit/redis-per-file";
import { until } from "@/testkit/until";
import { BackendLease, leaseHolder } from "./lease";
import { LogChannel } from "./log-channel";
import { RedisWindowLimiter } from "./redis-limiter";
import { ReplicatedSet } from "./replicated-set";
import { SharedFailureCounter } from "./shared-failures";
import { DeposedError, type LogEntry, SessionLog } from "./session-log";

const { client } = redisPerFile();

function recorder() {
  const events: string[] = [];
  return {
    events,
    acquired: (e: number) => events.push(`acquired ${e}`),
    lost: (e: number) => events.push(`lost ${e}`),
  };
}

describe("backend lease (real Redis)", () => {
  it("one owner; when it stops answering, another takes over with a higher epoch and the old one's writes are refused", async () => {
    const a = recorder();
    const b = recorder();
    const redisA = client();
    const leaseA = new BackendLease(redisA, "oc", "A", a, 600);
    const leaseB = new BackendLease(client(), "oc", "B", b, 600);
    leaseA.start();
    await until(() => a.events.includes("acquired 1"));
    leaseB.start();
    await new Promise((r) => setTimeout(r, 700));
    expect(b.events).toEqual([]);
    expect(await leaseHolder(client(), "oc")).toEqual({ replica: "A", epoch: 1 });
    const tokenA = leaseA.token!;
    const log = new SessionLog(client(), "oc", "s1");
    await log.append(tokenA, [{ seq: 1, frame: "one" }]);

    // A stalls: its connection to Redis is gone, so it cannot renew.
    redisA.disconnect();
    await until(() => b.events.includes("acquired 2"), "B takes the lease", 5000);
    await until(() => a.events.includes("lost 1"), "A knows it lost the lease", 5000);
    await expect(log.append(tokenA, [{ seq: 2, frame: "late" }])).rejects.toBeInstanceOf(DeposedError);
    await log.append(leaseB.token!, [{ seq: 2, frame: "two" }]);
    expect((await log.after(0)).map((e) => e.frame)).toEqual(["one", "two"]);
    await leaseB.stop();
    expect(b.events).toEqual(["acquired 2", "lost 2"]);
    expect(await leaseHolder(client(), "oc")).toBeUndefined();
    await leaseA.stop();
  });
});

describe("session log in Redis Streams (real Redis)", () => {
  it("seq is the stream id: reads from a cursor, follows live, keeps large frames whole, refuses falling ids", async () => {
    const redis = client();
    await redis.set("sb:lease:b1", "R:1");
    const log = new SessionLog(redis, "b1", "s1");
    expect(await log.bounds()).toBeUndefined();
    await log.append(
      "R:1",
      [1, 2, 3].map((seq) => ({ seq, frame: `f${seq}` })),
    );
    expect((await log.after(1)).map((e) => e.seq)).toEqual([2, 3]);
    expect(await log.bounds()).toEqual({ first: 1, last: 3 });
    expect(await log.holds(0)).toBe(true);

    const got: LogEntry[] = [];
    const stop = log.follow(client(), 3, (batch) => got.push(...batch));
    const big = "x".repeat(1_000_000);
    await log.append("R:1", [
      { seq: 4, frame: "f4" },
      { seq: 5, frame: big },
    ]);
    await until(() => got.length === 2);
    expect(got.map((e) => e.seq)).toEqual([4, 5]);
    expect(got[1]!.frame.length).toBe(1_000_000);
    stop();
    // A seq that does not rise is an error from Redis, not a silent reorder.
    await expect(log.append("R:1", [{ seq: 5, frame: "again" }])).rejects.toThrow();
    await expect(log.append("R:2", [{ seq: 6, frame: "f6" }])).rejects.toBeInstanceOf(DeposedError);
  });
});

describe("limits counted in Redis (real Redis)", () => {
  it("failed logins split across two replicas are counted together, per address and in total", async () => {
    const opts = { perKey: 3, total: 5, windowMs: 60_000 };
    const a = new RedisWindowLimiter(client(), "login", opts);
    const b = new RedisWindowLimiter(client(), "login", opts);
    await a.hit("10.0.0.1");
    await b.hit("10.0.0.1");
    expect(await a.check("10.0.0.1")).toEqual({ allowed: true, retryAfter: 0 });
    await a.hit("10.0.0.1");
    const blocked = await b.check("10.0.0.1");
    expect(blocked.allowed).toBe(false);
    expect(blocked.retryAfter).toBeGreaterThan(50);
    expect((await b.check("10.0.0.2")).allowed).toBe(true);
    await b.hit("10.0.0.2");
    await a.hit("10.0.0.3");
    // Five failures in all: every address meets the total now (login's slow lane), also one never seen.
    expect(await a.check("10.0.0.9")).toMatchObject({ allowed: false, scope: "total" });
    expect(blocked.scope).toBe("key");
  });

  it("a window ends by itself", async () => {
    const a = new RedisWindowLimiter(client(), "short", { perKey: 1, total: 100, windowMs: 200 });
    await a.hit("x");
    expect((await a.check("x")).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect((await a.check("x")).allowed).toBe(true);
  });
});

describe("what anonymous clients leave behind is bounded (real Redis)", () => {
  it("1,000 clients with 8 KB keys: hashed fixed-size keys that expire, a blocked set held to its cap", async () => {
    const redis = client();
    const sub = client();
    const blocked = new ReplicatedSet(redis, sub, "blocked", Date.now, 300);
    await blocked.start();
    const other = new ReplicatedSet(client(), client(), "blocked", Date.now, 300);
    await other.start();
    const counter = new SharedFailureCounter(redis, blocked, "share-tokens", 1, 60_000);
    const limiter = new RedisWindowLimiter(redis, "login-bounds", { perKey: 1, total: 100_000, windowMs: 60_000 });
    const long = (i: number) => `${String(i).padStart(6, "0")}-${"x".repeat(8_000)}`;
    for (let i = 0; i < 1000; i++) {
      await counter.count(long(i));
      await limiter.hit(long(i));
    }
    expect(counter.blockedFor(long(999))).toBeGreaterThan(0);
    const keys = await redis.keys("sb:*");
    // 1,000 failure counters and 1,000 login counters, each under a 32-character hash, none without a TTL.
    expect(keys.every((k) => k.length < 80)).toBe(true);
    for (const k of keys.filter((k) => k.startsWith("sb:limit:")).slice(0, 50))
      expect(await redis.pttl(k)).toBeGreaterThan(0);
    // The blocked set: at most its cap in Redis and in each replica's memory, and it expires itself.
    expect(await redis.zcard("sb:set:blocked")).toBeLessThanOrEqual(300);
    expect(await redis.pttl("sb:set:blocked")).toBeGreaterThan(0);
    expect(blocked.size).toBeLessThanOrEqual(300);
    await until(() => other.size >= 250, "the other replica hears the additions");
    expect(other.size).toBeLessThanOrEqual(300);
    // Nothing an anonymous client sent is stored as it is.
    const members = await redis.zrange("sb:set:blocked", "0", "-1");
    expect(members.every((m) => m.length < 60 && !m.includes("xxxx"))).toBe(true);
    const memory = Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1]);
    // A few hundred KB for 2,000 counters and the set, against 16 MB had the keys been stored whole.
    expect(memory).toBeLessThan(8 * 1024 * 1024);
    for (const s of [blocked, other]) await s.stop();
  });
});

describe("a set every replica sees (real Redis)", () => {
  it("a logout on A is seen on B within a second; a replica started later loads it; expired members go", async () => {
    const a = new ReplicatedSet(client(), client(), "logouts");
    const b = new ReplicatedSet(client(), client(), "logouts");
    await a.start();
    await b.start();
    await a.add("session-1", Date.now() + 60_000);
    expect(a.has("session-1")).toBe(true);
    // The bound ("within a second") as the wait's deadline, not a timing assertion.
    await until(() => b.has("session-1"), "B sees the logout within a second", 1000);
    await a.add("short", Date.now() + 150);
    const c = new ReplicatedSet(client(), client(), "logouts");
    await c.start();
    expect(c.has("session-1")).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(c.has("short")).toBe(false);
    expect(b.has("short")).toBe(false);
    expect(b.has("never")).toBe(false);
    for (const s of [a, b, c]) await s.stop();
  });
});

describe("a session's stream served by any replica (real Redis)", () => {
  class Sink {
    frames: string[] = [];
    closed = false;
    write(f: Uint8Array) {
      this.frames.push(new TextDecoder().decode(f));
      return true;
    }
    close() {
      this.closed = true;
    }
    get seqs() {
      return this.frames.map((f) => Number(/^id: (\d+)/.exec(f)?.[1]));
    }
  }

  it("live on both replicas with rising seqs; a cursor from A resumes on B with no gap or repeat; a lost cursor resets", async () => {
    const redis = client();
    await redis.set("sb:lease:oc2", "A:1");
    const owner = new SessionLog(redis, "oc2", "s");
    const onA = await LogChannel.open(new SessionLog(client(), "oc2", "s"), client());
    const onB = await LogChannel.open(new SessionLog(client(), "oc2", "s"), client());
    const a = new Sink();
    const b = new Sink();
    await onA.subscribe(a, undefined);
    await onB.subscribe(b, undefined);
    const frame = (seq: number) => ({ seq, frame: JSON.stringify({ type: "block.delta", delta: `t${seq}`, seq }) });
    for (let seq = 1; seq <= 50; seq++) await owner.append("A:1", [frame(seq)]);
    await until(() => a.frames.length === 50 && b.frames.length === 50);
    expect(b.seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(a.seqs).toEqual(b.seqs);

    // A browser that saw up to 20 on A comes back through B while the owner goes on appending.
    const resumed = new Sink();
    const appending = (async () => {
      for (let seq = 51; seq <= 80; seq++) await owner.append("A:1", [frame(seq)]);
    })();
    await onB.subscribe(resumed, 20);
    await appending;
    await until(() => resumed.frames.length === 60);
    expect(resumed.seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 21));

    // The log no longer holds seq 1..: a cursor of 0 from a stale tab is reset, not silently cut.
    await redis.xtrim("sb:log:oc2:s", "MINID", "40-0");
    const stale = new Sink();
    await onB.subscribe(stale, 5);
    expect(stale.frames[0]).toContain('"type":"stream.reset"');
    onA.close();
    onB.close();
  });
});
