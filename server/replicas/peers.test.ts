import { describe, expect, it } from "vitest";
import { isLoopbackHost, PeerPolicy, peerUrlProblem } from "./peers";

describe("replica peers", () => {
  it("loopback is 127.0.0.0/8, ::1 and localhost, nothing that merely starts like them", () => {
    for (const h of ["127.0.0.1", "127.3.4.5", "[::1]", "localhost", "a.localhost"])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of [
      "127.0.0.1.evil.example",
      "10.0.0.1",
      "0.0.0.0",
      "[::]",
      "localhost.evil.example",
      "::ffff:10.0.0.1",
    ])
      expect(isLoopbackHost(h)).toBe(false);
  });

  it("http:// only to loopback, no credentials in the URL, http(s) only", () => {
    expect(peerUrlProblem("http://127.0.0.1:3000")).toBeUndefined();
    expect(peerUrlProblem("https://b.internal:3443")).toBeUndefined();
    expect(peerUrlProblem("http://b.internal:3000")).toMatch(/https/);
    expect(peerUrlProblem("https://u:p@b.internal")).toMatch(/user name/);
    expect(peerUrlProblem("file:///etc/passwd")).toMatch(/http/);
    expect(peerUrlProblem("not a url")).toMatch(/http/);
  });

  it("a listed base URL matches its origin; host[:port] matches the host (and port when given)", () => {
    const p = PeerPolicy.fromList("https://a.internal:3443, b.internal, c.internal:8443");
    expect(p.allows("https://a.internal:3443")).toBe(true);
    expect(p.allows("https://a.internal:3444")).toBe(false);
    expect(p.allows("https://b.internal:1234")).toBe(true);
    expect(p.allows("http://b.internal:1234")).toBe(false); // not loopback: https only
    expect(p.allows("https://c.internal:8443")).toBe(true);
    expect(p.allows("https://c.internal")).toBe(false);
    expect(p.allows("https://evil.example")).toBe(false);
    expect(p.check("x", 42)).toBeUndefined();
    expect(p.check("x", "https://evil.example")).toBeUndefined();
    expect(p.check("a", "https://a.internal:3443")).toBe("https://a.internal:3443");
    const local = new PeerPolicy(undefined);
    expect(local.allows("http://127.0.0.1:3001")).toBe(true);
    expect(local.allows("https://10.0.0.5:3443")).toBe(false);
  });
});
