import { describe, expect, it } from "vitest";
import { redisPerFile } from "../../testkit/redis-per-file";
import { until } from "@/testkit/until";
import { ReplicatedSet } from "./replicated-set";
import { SharedFailureCounter } from "./shared-failures";

const { client } = redisPerFile();

describe("a failure limit over every replica (real Redis)", () => {
  it("failures split across two replicas are counted together, and the block is seen on both at once", async () => {
    const counter = async () => {
      const blocked = new ReplicatedSet(client(), client(), "blocked");
      await blocked.start();
      return new SharedFailureCounter(client(), blocked, "share-tokens", 6, 60_000);
    };
    const a = await counter();
    const b = await counter();
    for (let i = 0; i < 3; i++) await a.count("203.0.113.7");
    for (let i = 0; i < 2; i++) await b.count("203.0.113.7");
    expect(a.blockedFor("203.0.113.7")).toBe(0);
    expect(b.blockedFor("203.0.113.7")).toBe(0);
    b.fail("203.0.113.7"); // the sixth, on B
    await until(() => a.blockedFor("203.0.113.7") > 0, "A sees the block", 1_000);
    expect(b.blockedFor("203.0.113.7")).toBeGreaterThan(55);
    expect(a.blockedFor("203.0.113.7")).toBeLessThanOrEqual(60);
    // Another address is not blocked.
    expect(a.blockedFor("203.0.113.8")).toBe(0);
  });
});
