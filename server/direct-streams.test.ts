import http from "node:http";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { consoleTokenPerFile } from "../testkit/console-token";
import { peerAddress } from "./auth/client-address";
import { type DirectStreamDeps, proxyAdmits, serveStreamDirectly } from "./direct-streams";
import { encodeFrame, type SseSink } from "./hub/sse";

/**
 * Runs `f` against a server that serves what `serveStreamDirectly` takes, and answers 418 "next"
 * for what it leaves to Next; closes it (and its keep-alive connections) after.
 */
async function withServer(deps: DirectStreamDeps, f: (url: string) => Promise<void>) {
  const toNext = (res: http.ServerResponse) => {
    res.statusCode = 418;
    res.end("next");
  };
  const server = http.createServer((req, res) => {
    if (!serveStreamDirectly(req, res, () => toNext(res), deps)) toNext(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    await f(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  }
}

interface Opened {
  kind: "events" | "global" | "live" | "share-live";
  backendId?: string;
  sessionId?: string;
  after?: number | undefined;
  sink?: SseSink;
  detached: boolean;
}

function fakeDeps(fail?: Error | "full") {
  const opened: Opened[] = [];
  const deps: DirectStreamDeps = {
    admit: (req) => (req.headers.get("authorization") === "Bearer ok" ? { "x-frame-options": "DENY" } : undefined),
    open: async (stream) => {
      if (fail === "full") return undefined;
      if (fail) throw fail;
      const o: Opened = { ...stream, detached: false };
      opened.push(o);
      return {
        open: (sink) => {
          o.sink = sink;
          return () => void (o.detached = true);
        },
        ...(stream.kind === "share-live" ? { headers: { "x-robots-tag": "noindex" } } : {}),
      };
    },
  };
  return { deps, opened };
}

const OK = { authorization: "Bearer ok" };
const until = async (f: () => boolean) => {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(f()).toBe(true);
};

describe("event streams served before Next", () => {
  it("streams an admitted request with the proxy's headers, and detaches when the client goes", async () => {
    const { deps, opened } = fakeDeps();
    await withServer(deps, async (url) => {
      const ac = new AbortController();
      const res = await fetch(`${url}/api/backends/b%201/sessions/ses_1/events?after=7`, {
        headers: OK,
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(opened).toMatchObject([{ kind: "events", backendId: "b 1", sessionId: "ses_1", after: 7 }]);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("retry: 1000")) text += (await reader.read()).value ?? "";
      opened[0]!.sink!.write(encodeFrame(8, { type: "stream.reset", reason: "x", seq: 8 }));
      while (!text.includes('"seq":8')) text += (await reader.read()).value ?? "";
      expect(text).toContain("id: 8\ndata: ");
      ac.abort();
      await until(() => opened[0]!.detached);
    });
  });

  it("serves a browser's live stream, and leaves one with a query, or one the console has no room for, to Next", async () => {
    const { deps, opened } = fakeDeps();
    await withServer(deps, async (url) => {
      const ac = new AbortController();
      const res = await fetch(`${url}/api/live`, { headers: OK, signal: ac.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(opened).toMatchObject([{ kind: "live" }]);
      ac.abort();
      await until(() => opened[0]!.detached);
      for (const [p, headers] of [
        ["/api/live?x=1", OK],
        ["/api/live", {}],
        ["/api/live/abc", OK],
      ] as const) {
        const r = await fetch(`${url}${p}`, { headers });
        expect([p, r.status]).toEqual([p, 418]);
      }
      expect(opened).toHaveLength(1);
    });
    await withServer(fakeDeps("full").deps, async (url) => {
      const r = await fetch(`${url}/api/live`, { headers: OK });
      expect(r.status).toBe(418);
    });
  });

  it("serves a share page's live stream with the share's public headers", async () => {
    const { deps, opened } = fakeDeps();
    await withServer(deps, async (url) => {
      const ac = new AbortController();
      const res = await fetch(`${url}/api/shares/public/live`, { headers: OK, signal: ac.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-robots-tag")).toBe("noindex");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(opened).toMatchObject([{ kind: "share-live" }]);
      // The share quota counts the socket's address: the stamp the routes read is on the headers.
      const seen = (opened[0] as unknown as { headers: Headers }).headers;
      expect(peerAddress(seen)).toBe("127.0.0.1");
      ac.abort();
      await until(() => opened[0]!.detached);
    });
  });

  it("serves the cross-session events with their Last-Event-ID, and leaves one with a query to Next", async () => {
    const { deps, opened } = fakeDeps();
    await withServer(deps, async (url) => {
      const ac = new AbortController();
      const res = await fetch(`${url}/api/events`, { headers: { ...OK, "last-event-id": "5" }, signal: ac.signal });
      expect(res.status).toBe(200);
      expect(opened).toMatchObject([{ kind: "global", after: 5 }]);
      ac.abort();
      for (const p of ["/api/events?after=1", "/api/events/stats", "/api/events/hello"]) {
        const r = await fetch(`${url}${p}`, { headers: OK });
        expect([p, r.status]).toEqual([p, 418]);
      }
      expect(opened).toHaveLength(1);
    });
  });

  it("takes the cursor from Last-Event-ID over ?after=, as the route does", async () => {
    const { deps, opened } = fakeDeps();
    await withServer(deps, async (url) => {
      const ac = new AbortController();
      const res = await fetch(`${url}/api/backends/b/sessions/s/events?after=3`, {
        headers: { ...OK, "last-event-id": "42" },
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
      expect(opened[0]!.after).toBe(42);
      ac.abort();
    });
  });

  it("leaves to Next what the proxy refuses, what another replica signed, and any other request", async () => {
    const { deps, opened } = fakeDeps();
    await withServer(deps, async (url) => {
      const asks: [string, RequestInit][] = [
        ["/api/backends/b/sessions/s/events", {}],
        ["/api/backends/b/sessions/s/events", { headers: { authorization: "Bearer nope" } }],
        ["/api/backends/b/sessions/s/events", { headers: { ...OK, "x-switchboard-replica-signature": "sig" } }],
        ["/api/backends/b/sessions/s/events", { method: "POST", headers: OK, body: "{}" }],
        ["/api/backends/b/sessions/s/events/", { headers: OK }],
        ["/api/backends/b/sessions/s/snapshot", { headers: OK }],
        ["/api/backends/b/sessions/s/x/events", { headers: OK }],
      ];
      for (const [p, init] of asks) {
        const res = await fetch(`${url}${p}`, init);
        expect([p, res.status, await res.text()]).toEqual([p, 418, "next"]);
      }
      expect(opened).toEqual([]);
    });
  });

  it("leaves a bad query, cursor or path to Next, which answers it in the error shape", async () => {
    const { deps, opened } = fakeDeps();
    await withServer(deps, async (url) => {
      const asks: [string, Record<string, string>][] = [
        ["/api/backends/b/sessions/s/events?after=abc", OK],
        ["/api/backends/b/sessions/s/events?after=1&after=2", OK],
        ["/api/backends/b/sessions/s/events?unknown=1", OK],
        ["/api/backends/b/sessions/s/events", { ...OK, "last-event-id": "-1" }],
        ["/api/backends/%E0%A4%A/sessions/s/events", OK],
      ];
      for (const [p, headers] of asks) {
        const res = await fetch(`${url}${p}`, { headers });
        expect([p, res.status]).toEqual([p, 418]);
      }
      expect(opened).toEqual([]);
    });
  });

  it("hands the request to Next when opening the stream fails (unknown backend, backend down)", async () => {
    const { deps } = fakeDeps(new Error("no such backend"));
    await withServer(deps, async (url) => {
      const res = await fetch(`${url}/api/backends/nope/sessions/s/events`, { headers: OK });
      expect(res.status).toBe(418);
      expect(await res.text()).toBe("next");
    });
  });
});

describe("proxyAdmits (the proxy's own decision)", () => {
  const TOKEN = "direct-streams-test-console-token-abcdefgh";
  consoleTokenPerFile(TOKEN, "sb-direct-");
  const req = (headers: Record<string, string>) =>
    new NextRequest(new URL("/api/backends/b/sessions/s/events", "http://127.0.0.1:3000"), {
      headers: { host: "127.0.0.1:3000", ...headers },
    });

  it("admits the console token with the API's security headers, and nobody without it", () => {
    expect(proxyAdmits(req({}))).toBeUndefined();
    expect(proxyAdmits(req({ authorization: "Bearer wrong" }))).toBeUndefined();
    const headers = proxyAdmits(req({ authorization: `Bearer ${TOKEN}` }));
    expect(headers).toMatchObject({
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "content-security-policy": expect.stringContaining("default-src 'none'"),
    });
    expect(Object.keys(headers!).filter((k) => k.startsWith("x-middleware-"))).toEqual([]);
  });
});
