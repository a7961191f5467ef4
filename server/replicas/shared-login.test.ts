import { describe, expect, it } from "vitest";
import { consoleTokenPerFile } from "../../testkit/console-token";
import { consoleAuth, login, LOGIN_LIMIT, shareAuthState } from "../auth/console-auth";
import { SlowLane } from "../auth/rate-limit";
import { isApiError } from "../errors";
import { RedisWindowLimiter } from "./redis-limiter";
import { redisPerFile } from "../../testkit/redis-per-file";

const redis = redisPerFile();

const TOKEN = "unit-test-console-token-0123456789";
consoleTokenPerFile(TOKEN, "sb-auth-");

async function code(fn: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await fn();
    return undefined;
  } catch (err) {
    return isApiError(err) ? err.code : "thrown";
  }
}

describe("console auth in replica mode (failed logins counted in a real Redis)", () => {
  it("over the total, and with the slow lane full, the right token still gets in; a wrong one is refused and counted", async () => {
    const a = consoleAuth();
    const limiter = new RedisWindowLimiter(redis.client(), "login", LOGIN_LIMIT);
    shareAuthState({ loggedOut: { has: () => false, add: async () => {} }, limiter });
    a.slowLane = new SlowLane(60_000, 1);
    try {
      for (let i = 0; i < LOGIN_LIMIT.total; i++) await code(() => login("wrong", `10.80.${i >> 8}.${i & 255}`));
      expect((await limiter.check("10.81.0.1")).scope).toBe("total");
      await a.slowLane.pass();
      void a.slowLane.pass();
      expect(await code(() => login("wrong", "10.81.0.1"))).toBe("rate_limited");
      expect(await code(() => login(TOKEN, "10.81.0.2"))).toBeUndefined();
      for (let i = 1; i < LOGIN_LIMIT.perKey; i++) await code(() => login("wrong", "10.81.0.1"));
      expect((await limiter.check("10.81.0.1")).scope).toBe("key");
      // Over its own limit, an address is refused whatever it presents (the per-address bound on guessing).
      expect(await code(() => login(TOKEN, "10.81.0.1"))).toBe("rate_limited");
    } finally {
      shareAuthState(undefined);
    }
  });
});
