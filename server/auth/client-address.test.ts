import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddress, PEER_HEADER, peerAddress, stampPeerAddresses, trustedProxies } from "./client-address";

/**
 * Real sockets on distinct loopback addresses (Linux routes all of 127/8 to lo): a client at
 * 127.0.0.2, a proxy at 127.0.0.3 that appends to X-Forwarded-For as nginx's
 * `$proxy_add_x_forwarded_for` does, and the console's server at 127.0.0.1, whose handler reads the
 * client address as a route does (a `Headers` of the request's headers).
 */
const CLIENT = "127.0.0.2";
const PROXY = "127.0.0.3";
let server: http.Server;
let proxy: http.Server;
let seen: Headers;

function listen(s: http.Server, host: string): Promise<number> {
  return new Promise((resolve) => s.listen(0, host, () => resolve((s.address() as AddressInfo).port)));
}

function get(port: number, host: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, path: "/", headers, localAddress: CLIENT }, (res) => {
      res.resume();
      res.on("end", () => resolve());
    });
    req.on("error", reject);
    req.end();
  });
}

let serverPort = 0;
let proxyPort = 0;
beforeAll(async () => {
  stampPeerAddresses();
  server = http.createServer((req, res) => {
    seen = new Headers(req.headers as Record<string, string>);
    res.end("ok");
  });
  serverPort = await listen(server, "127.0.0.1");
  proxy = http.createServer((req, res) => {
    const xff = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    const up = http.request(
      {
        host: "127.0.0.1",
        port: serverPort,
        path: req.url,
        headers: { ...req.headers, "x-forwarded-for": xff },
        localAddress: PROXY,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  proxyPort = await listen(proxy, PROXY);
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await new Promise((r) => proxy.close(r));
});

describe("clientAddress", () => {
  it("directly: the socket's peer, whatever X-Forwarded-For or a forged stamp says", async () => {
    await get(serverPort, "127.0.0.1", { "x-forwarded-for": "6.6.6.6", [PEER_HEADER]: "guess 9.9.9.9" });
    expect(peerAddress(seen)).toBe(CLIENT);
    expect(clientAddress(seen, trustedProxies(""))).toBe(CLIENT);
    // Two spoofed values from one socket are one client.
    await get(serverPort, "127.0.0.1", { "x-forwarded-for": "7.7.7.7, 8.8.8.8" });
    expect(clientAddress(seen, trustedProxies(""))).toBe(CLIENT);
    // A proxy trusted by count is not trusted when it is not there: the peer is then the client
    // (with hops, the console must only be reachable through its proxies: docs/security.md).
    expect(clientAddress(seen, trustedProxies(PROXY))).toBe(CLIENT);
  });

  it("behind a trusted proxy: the entry it appended, never one the client prepended", async () => {
    await get(proxyPort, PROXY, { "x-forwarded-for": "6.6.6.6" });
    expect(seen.get("x-forwarded-for")).toBe(`6.6.6.6, ${CLIENT}`);
    expect(clientAddress(seen, trustedProxies(""))).toBe(PROXY); // not trusted: the proxy is the client
    expect(clientAddress(seen, trustedProxies("1"))).toBe(CLIENT);
    expect(clientAddress(seen, trustedProxies(PROXY))).toBe(CLIENT);
    // Trusting the client's own range too hands it the choice (why the list should name proxies only).
    expect(clientAddress(seen, trustedProxies("127.0.0.0/30"))).toBe("6.6.6.6");
    // The client forges a chain that names the proxy: the right-most untrusted entry is still its own.
    await get(proxyPort, PROXY, { "x-forwarded-for": `6.6.6.6, ${PROXY}` });
    expect(clientAddress(seen, trustedProxies(`${PROXY}, 10.0.0.0/8`))).toBe(CLIENT);
  });

  it("a request without this process's stamp is one unknown client; addresses are normalised and bounded", () => {
    expect(clientAddress(new Headers({ "x-forwarded-for": "6.6.6.6" }))).toBe("unknown");
    expect(clientAddress(new Headers({ [PEER_HEADER]: "not-the-secret 1.2.3.4" }))).toBe("unknown");
    const stamped = (peer: string, xff?: string) => {
      const h = new Headers({ [PEER_HEADER]: `${secretOf()} ${peer}` });
      if (xff) h.set("x-forwarded-for", xff);
      return h;
    };
    expect(clientAddress(stamped("::ffff:10.1.2.3"))).toBe("10.1.2.3");
    expect(clientAddress(stamped(PROXY, `${"x".repeat(8000)}`), trustedProxies(PROXY))).toBe("not-an-address");
    expect(clientAddress(stamped(PROXY, "203.0.113.9:5555"), trustedProxies("1"))).toBe("203.0.113.9");
  });

  it("an IPv6 client is its /64 (one host can take any address in it), directly and behind a proxy", () => {
    const stamped = (peer: string, xff?: string) => {
      const h = new Headers({ [PEER_HEADER]: `${secretOf()} ${peer}` });
      if (xff) h.set("x-forwarded-for", xff);
      return h;
    };
    const a = clientAddress(stamped("2001:db8:1:2::5"));
    expect(a).toBe("2001:db8:1:2::/64");
    expect(clientAddress(stamped("2001:db8:1:2:ffff:ee:dd:cc"))).toBe(a);
    expect(clientAddress(stamped(PROXY, "2001:db8:1:2:abcd::1"), trustedProxies(PROXY))).toBe(a);
    expect(clientAddress(stamped("2001:db8:1:3::5"))).not.toBe(a);
    expect(clientAddress(stamped("::1"))).toBe("::1");
  });
});

/** The stamp's secret, read back from a stamped request (the tests' own server). */
function secretOf(): string {
  return seen.get(PEER_HEADER)!.split(" ")[0]!;
}
