import { describe, expect, it } from "vitest";
import { consoleOrigin, exposureWarning, isLoopbackHost, listenAddress } from "./announce";

const next = (...args: string[]) => ["/usr/bin/node", "/app/node_modules/next/dist/bin/next", ...args];

describe("where the console listens", () => {
  it("reads -H / --hostname from `next start` (the last one wins), and knows nothing otherwise", () => {
    expect(listenAddress(next("start", "-H", "127.0.0.1", "-p", "3000"))).toEqual({ host: "127.0.0.1" });
    expect(listenAddress(next("start", "-H0.0.0.0"))).toEqual({ host: "0.0.0.0" });
    expect(listenAddress(next("start", "--hostname=::1"))).toEqual({ host: "::1" });
    expect(listenAddress(next("start", "--hostname", "10.0.0.5", "-H", "127.0.0.1"))).toEqual({ host: "127.0.0.1" });
    expect(listenAddress(next("start"))).toEqual({});
    expect(listenAddress(next("dev", "-H", "0.0.0.0"))).toBeUndefined();
    expect(listenAddress(["/usr/bin/node", "/app/server.js"])).toBeUndefined();
  });

  it("tells loopback from the rest", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.4", "10.0.0.5", "example.com", "128.0.0.1"])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it("warns loudly beyond loopback, including a bare `next start` (all interfaces), and not on loopback", () => {
    expect(exposureWarning(next("start", "-H", "127.0.0.1"))).toBeUndefined();
    expect(exposureWarning(next("start", "-H", "0.0.0.0"))).toMatch(/WARNING: listening on every network interface/);
    expect(exposureWarning(next("start", "-H", "192.168.1.4"))).toMatch(/WARNING: listening on 192\.168\.1\.4/);
    expect(exposureWarning(next("start"))).toMatch(/every network interface.*without -H/);
    expect(exposureWarning(next("dev"))).toBeUndefined();
  });

  it("prints a login address people can open (loopback for a wildcard, brackets for IPv6)", () => {
    expect(consoleOrigin({ PORT: "4000" }, next("start", "-H", "0.0.0.0"))).toBe("http://127.0.0.1:4000");
    expect(consoleOrigin({ PORT: "4000" }, next("start", "-H", "::1"))).toBe("http://[::1]:4000");
    expect(consoleOrigin({ HOST: "192.168.1.4" }, ["/usr/bin/node", "/app/server.js"])).toBe("http://192.168.1.4:3000");
  });
});
