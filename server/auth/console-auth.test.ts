import { describe, expect, it } from "vitest";
import { consoleTokenPerFile } from "../../testkit/console-token";
import { isApiError } from "../errors";
import {
  authenticate,
  consoleAuth,
  clearedSessionCookie,
  isHttps,
  login,
  logout,
  readCookie,
  sessionCookie,
  SESSION_COOKIE,
  LOGIN_LIMIT,
} from "./console-auth";
import { FixedWindowLimiter, SlowLane } from "./rate-limit";

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

describe("console auth", () => {
  it("accepts the bearer token and refuses a wrong one (a wrong bearer is not rescued by a cookie)", async () => {
    const { cookieValue } = await login(TOKEN, "10.0.0.1");
    expect(authenticate(new Headers({ authorization: `Bearer ${TOKEN}` }), undefined)).toBe("bearer");
    expect(authenticate(new Headers({ authorization: "Bearer wrong" }), cookieValue)).toBeUndefined();
    expect(authenticate(new Headers(), undefined)).toBeUndefined();
  });

  it("logs in with a cookie that works until logout", async () => {
    const { cookieValue } = await login(TOKEN, "10.0.0.2");
    expect(cookieValue).not.toContain(TOKEN);
    expect(authenticate(new Headers(), cookieValue)).toBe("cookie");
    await logout(cookieValue);
    expect(authenticate(new Headers(), cookieValue)).toBeUndefined();
  });

  it("rate limits failed logins per address with 429", async () => {
    for (let i = 0; i < LOGIN_LIMIT.perKey; i++)
      expect(await code(() => login("wrong", "10.9.9.9"))).toBe("unauthorized");
    expect(await code(() => login("wrong", "10.9.9.9"))).toBe("rate_limited");
    expect(await code(() => login(TOKEN, "10.9.9.9"))).toBe("rate_limited");
    expect(await code(() => login(TOKEN, "10.9.9.10"))).toBeUndefined();
  });

  it("failed logins from everywhere over the total do not lock out the right token (the slow lane)", async () => {
    // Over the total, from as many addresses as it takes (one failure each).
    for (let i = 0; i < LOGIN_LIMIT.total; i++) await code(() => login("wrong", `10.50.${i >> 8}.${i & 255}`));
    // A fresh address with a wrong token: refused as wrong, after its turn (not locked out, not let in).
    expect(await code(() => login("wrong", "10.60.0.1"))).toBe("unauthorized");
    // The right token gets in, from a fresh address and from one that failed once.
    expect(await code(() => login(TOKEN, "10.60.0.2"))).toBeUndefined();
    expect(await code(() => login(TOKEN, "10.50.0.7"))).toBeUndefined();
  });

  it("the right token gets in while the slow lane is full; a wrong one is refused and counted against its address", async () => {
    const a = consoleAuth();
    a.limiter = new FixedWindowLimiter(LOGIN_LIMIT);
    // A lane whose turns come a minute apart, so it stays full for the test (its timers are unref'd).
    a.slowLane = new SlowLane(60_000, 2);
    for (let i = 0; i < LOGIN_LIMIT.total; i++) await code(() => login("wrong", `10.70.${i >> 8}.${i & 255}`));
    // One attempt through the lane, and two waiting behind it: the lane is full.
    await a.slowLane.pass();
    void a.slowLane.pass();
    void a.slowLane.pass();
    // A wrong token: refused at once, and counted against its address.
    expect(await code(() => login("wrong", "10.71.0.3"))).toBe("rate_limited");
    // The right token is not locked out by a full lane.
    expect(await code(() => login(TOKEN, "10.71.0.4"))).toBeUndefined();
    // Per address the bound is absolute: lane-full refusals count, so an address still meets its own limit.
    for (let i = 0; i < LOGIN_LIMIT.perKey; i++) await code(() => login("wrong", "10.72.0.1"));
    expect(a.limiter.check("10.72.0.1").scope).toBe("key");
  });

  it("formats cookies and reads request details", () => {
    const c = sessionCookie("v", { secure: true, maxAge: 5 });
    expect(c).toBe(`${SESSION_COOKIE}=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=5; Secure`);
    expect(clearedSessionCookie({ secure: false })).toContain("Max-Age=0");
    expect(readCookie(new Headers({ cookie: `a=1; ${SESSION_COOKIE}=xyz; b=2` }), SESSION_COOKIE)).toBe("xyz");
    expect(isHttps("http://x/", new Headers({ "x-forwarded-proto": "https" }))).toBe(true);
    expect(isHttps("http://x/", new Headers())).toBe(false);
  });
});
