/**
 * Issue 39: replicas no longer send the console token to an address read from Redis, and what they
 * read from Redis is validated. A real redis-server (./redis-per-file.ts) and a real HTTP listener
 * stand for the attacker's planted "replica".
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GlobalEvent } from "@/lib/model";
import { until } from "@/testkit/until";
import { ACTING_PERSON_HEADER, encodeActingPerson } from "../auth/acting-person";
import { admitPeers } from "../auth/peer-admission";
import type { BackendRegistry } from "../backends/registry";
import type { Hub } from "../hub/hub";
import { proxy } from "../../proxy";
import { noPeers, route, servePeerRequests } from "../http";
import { GlobalRelay } from "./global-relay";
import { leaseHolder } from "./lease";
import { PeerPolicy } from "./peers";
import { parseReplicaKeys, signRequest, VALIDITY_MS } from "./replica-auth";
import { acceptReplicaRequest, admitReplicaRequest, fromReplica, setReplicaGate } from "./replica-gate";
import { replicaMode } from "./replica-mode";
import { redisPerFile } from "../../testkit/redis-per-file";
import { RedisSessionJournal } from "./session-journal";
import { MAX_FRAME_BYTES, SessionLog } from "./session-log";

const redis = redisPerFile();

// The console's token (read lazily by the auth module): it must never leave this replica.
const CONSOLE_TOKEN = "console-token-that-must-stay-home-0123456789";
process.env.SWITCHBOARD_TOKEN = CONSOLE_TOKEN;
const KEYS = parseReplicaKeys("replica-key-for-tests-0123456789abcdef");

/** A listener that records every request it gets (the attacker's planted "replica"). */
interface Listener {
  url: string;
  seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): void;
}
async function listen(): Promise<Listener> {
  const seen: Listener["seen"] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => server.close(),
  };
}

/** Replica A in replica mode on the test's Redis, with a registry that lists zot but does not run it. */
function replicaA(peers: PeerPolicy) {
  const registry = {
    get: (id: string) => (id === "zot" ? {} : undefined),
    runsHere: () => false,
  } as unknown as BackendRegistry;
  const config = {
    replicaId: "A",
    redisUrl: redis.url(),
    replicaUrl: "http://127.0.0.1:1",
    leaseTtlMs: 600,
    replicaKeys: KEYS,
    peers,
  };
  const mode = replicaMode(config, {
    registry: () => registry,
    hub: () => ({}) as Hub,
    ready: async () => {},
    shareStreamCounts: () => ({}),
  });
  // What the composition root does (server/app.ts): the routes serve the peers' requests through it.
  servePeerRequests(mode.peerRequests);
  return {
    ...mode,
    async stop() {
      servePeerRequests(noPeers);
      await mode.stop();
    },
  };
}

const served = route<Record<string, string>>(async () => new Response("served here"));
const call = (req: Request, params: Record<string, string>) => served(req, { params: Promise.resolve(params) });

describe("an address planted in Redis (issue 39)", () => {
  let evil: Listener;
  beforeAll(async () => {
    evil = await listen();
    const r = redis.client();
    await r.set("sb:replica:evil", evil.url);
    await r.set("sb:lease:zot", "evil:1");
  });
  afterAll(() => evil.close());

  it("an anonymous live-stream request and a backend request never reach an address that is not on SWITCHBOARD_REPLICAS", async () => {
    const mode = replicaA(PeerPolicy.fromList("http://127.0.0.1:1,http://127.0.0.1:2"));
    try {
      const live = await call(
        new Request("http://a.test/api/shares/public/live/evil~x", {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ subscriptions: [] }),
        }),
        { streamId: "evil~x" },
      );
      expect(live.status).toBe(404);
      const backend = await call(
        new Request("http://a.test/api/backends/zot/sessions", { headers: { cookie: "sb_session=abc" } }),
        { backendId: "zot" },
      );
      expect(backend.status).toBe(503);
      expect(evil.seen).toEqual([]);
    } finally {
      await mode.stop().catch(() => undefined);
    }
  });

  it("an allowed (loopback) peer gets a signed request with no credential: nothing another replica would accept", async () => {
    const mode = replicaA(new PeerPolicy(undefined)); // SWITCHBOARD_REPLICAS unset: loopback peers
    try {
      const res = await call(
        new Request("http://a.test/api/shares/public/live/evil~x", {
          method: "PUT",
          headers: { "content-type": "application/json", authorization: `Bearer ${CONSOLE_TOKEN}` },
          body: "{}",
        }),
        { streamId: "evil~x" },
      );
      expect(res.status).toBe(200);
      await until(() => evil.seen.length === 1);
      const got = evil.seen[0]!;
      expect(got.headers.authorization).toBeUndefined();
      expect(got.headers.cookie).toBeUndefined();
      expect(JSON.stringify(got)).not.toContain(CONSOLE_TOKEN);
    } finally {
      await mode.stop().catch(() => undefined);
    }
    // Replayed to a real replica (B): signed for another address, so refused there.
    setReplicaGate({ keys: KEYS, replicaUrl: "http://127.0.0.1:2" });
    const got = evil.seen[0]!;
    const headers = new Headers();
    for (const [k, v] of Object.entries(got.headers)) if (typeof v === "string") headers.set(k, v);
    expect(admitReplicaRequest("PUT", got.url!, headers)).toBe(false);
    const replay = new Request(`http://127.0.0.1:2${got.url}`, { method: "PUT", headers, body: got.body });
    await expect(acceptReplicaRequest(replay)).rejects.toMatchObject({ code: "unauthorized" });
    setReplicaGate(undefined);
  });

  it("a lease naming a replica with no allowed address, or a malformed one, is nobody's", async () => {
    const r = redis.client();
    await r.set("sb:lease:bad", "evil:not-a-number");
    expect(await leaseHolder(r, "bad")).toBeUndefined();
    await r.set("sb:lease:bad", "a b:1");
    expect(await leaseHolder(r, "bad")).toBeUndefined();
  });
});

describe("signed requests between replicas", () => {
  const audience = "http://127.0.0.1:4000";
  beforeAll(() => {
    setReplicaGate({ keys: KEYS, replicaUrl: audience });
    // As the composition root (server/app.ts) gives replica mode's checks to the routes and the proxy.
    servePeerRequests({ ...noPeers, accept: acceptReplicaRequest });
    admitPeers({ admit: admitReplicaRequest });
  });
  afterAll(() => {
    servePeerRequests(noPeers);
    admitPeers(undefined);
    setReplicaGate(undefined);
  });

  const signed = (
    path: string,
    body: string | undefined,
    opts: {
      sendPath?: string;
      sendBody?: string;
      now?: number;
      keys?: typeof KEYS;
      to?: string;
      person?: string;
      sendPerson?: string;
    } = {},
  ) => {
    const method = body === undefined ? "GET" : "POST";
    const headers = signRequest(
      opts.keys ?? KEYS,
      "B",
      method,
      new URL(path, opts.to ?? audience),
      body,
      opts.now,
      opts.person,
    );
    const person = opts.sendPerson ?? opts.person;
    if (person !== undefined) headers[ACTING_PERSON_HEADER] = person;
    const sendBody = opts.sendBody ?? body;
    return new Request(new URL(opts.sendPath ?? path, audience), {
      method,
      headers,
      ...(sendBody !== undefined ? { body: sendBody } : {}),
    });
  };
  let handled: { body: string; fromReplica: boolean }[] = [];
  const handler = route(async (req) => {
    handled.push({ body: req.method === "GET" ? "" : await req.text(), fromReplica: fromReplica(req) });
    return new Response("ok");
  });
  const send = (req: Request) => handler(req, { params: Promise.resolve({}) });

  it("verifies once: the body arrives as signed, and the request is from a replica", async () => {
    handled = [];
    const req = signed("/api/shares?x=1", '{"a":1}');
    const again = req.clone();
    expect((await send(req)).status).toBe(200);
    expect(handled).toEqual([{ body: '{"a":1}', fromReplica: true }]);
    // The same request again (a replay of its nonce) is refused.
    expect((await send(again)).status).toBe(401);
    expect(handled).toHaveLength(1);
  });

  it("refuses a tampered path, query or body, an old or future timestamp, another key, another replica's address", async () => {
    handled = [];
    const bad = [
      signed("/api/backends/zot/sessions", "{}", { sendPath: "/api/backends/zot/config" }),
      signed("/api/shares?x=1", "{}", { sendPath: "/api/shares?x=2" }),
      signed("/api/shares", '{"a":1}', { sendBody: '{"a":2}' }),
      signed("/api/shares", "{}", { now: Date.now() - VALIDITY_MS - 5_000 }),
      signed("/api/shares", "{}", { now: Date.now() + VALIDITY_MS + 5_000 }),
      signed("/api/shares", "{}", { keys: parseReplicaKeys("another-key-of-32-bytes-or-more-0000000") }),
      signed("/api/shares", "{}", { to: "http://127.0.0.1:4001" }),
      // The person a forwarded request acts for is signed: another one, or one added, is refused.
      signed("/api/shares", "{}", {
        person: encodeActingPerson({ id: "olga", name: "Olga" }),
        sendPerson: encodeActingPerson({ id: "ada", name: "Ada" }),
      }),
      signed("/api/shares", "{}", { sendPerson: encodeActingPerson({ id: "ada", name: "Ada" }) }),
    ];
    for (const req of bad) expect((await send(req)).status).toBe(401);
    expect(handled).toEqual([]);
  });

  it("a request signed with the person it acts for is taken", async () => {
    handled = [];
    const req = signed("/api/shares", "{}", { person: encodeActingPerson({ id: "ada", name: "Ada" }) });
    expect((await send(req)).status).toBe(200);
    expect(handled).toHaveLength(1);
  });

  it("the proxy admits a signed request once; the route then takes it; a replay is refused by both", async () => {
    const req = signed("/api/backends/zot/sessions", undefined);
    const pathQuery = "/api/backends/zot/sessions";
    expect(admitReplicaRequest("GET", pathQuery, req.headers)).toBe(true);
    expect(admitReplicaRequest("GET", pathQuery, req.headers)).toBe(false);
    handled = [];
    expect((await send(req)).status).toBe(200);
    expect((await send(new Request(req.url, { headers: req.headers }))).status).toBe(401);
    expect(admitReplicaRequest("GET", pathQuery, req.headers)).toBe(false);
    expect(admitReplicaRequest("POST", pathQuery, signed(pathQuery, undefined).headers)).toBe(false);
  });

  it("the proxy lets a signed API request in as a login would, once; never a page, never unsigned", () => {
    const through = (path: string, headers: Record<string, string>) =>
      proxy(new NextRequest(new URL(path, audience), { headers: { host: "127.0.0.1:4000", ...headers } })).status;
    const h = signRequest(KEYS, "B", "GET", new URL("/api/backends/zot/sessions?x=1", audience));
    expect(through("/api/backends/zot/sessions?x=1", h)).toBe(200);
    expect(through("/api/backends/zot/sessions?x=1", h)).toBe(401);
    expect(
      through(
        "/api/backends/zot/sessions?x=2",
        signRequest(KEYS, "B", "GET", new URL("/api/backends/zot/sessions?x=1", audience)),
      ),
    ).toBe(401);
    expect(through("/", signRequest(KEYS, "B", "GET", new URL("/", audience)))).toBe(307);
    expect(through("/api/backends/zot/sessions", { "x-switchboard-forwarded-by": "B" })).toBe(401);
  });

  it("the console token is not a replica's mark: a browser holding it is still counted as a viewer", () => {
    const req = new Request(`${audience}/api/shares/public/t/events`, {
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}`, "x-switchboard-forwarded-by": "B" },
    });
    expect(fromReplica(req)).toBe(false);
    expect(fromReplica(signed("/api/shares/public/t/events", undefined))).toBe(true);
  });
});

describe("what is read from Redis is validated (issue 39)", () => {
  it("a malformed session log entry is skipped, never passed on as a frame", async () => {
    const r = redis.client();
    await r.xadd("sb:log:b1:s1", "1-0", "f", '{"type":"message.removed","messageId":"m","seq":1}');
    await r.xadd("sb:log:b1:s1", "2-0", "x", "no frame field");
    await r.xadd("sb:log:b1:s1", "3-0", "f", '{"seq":3}\n\ndata: {"type":"forged"}');
    await r.xadd("sb:log:b1:s1", "4-0", "f", '{"type":"message.removed","messageId":"n","seq":4}');
    const log = new SessionLog(r, "b1", "s1");
    expect((await log.after(0)).map((e) => e.seq)).toEqual([1, 4]);
    const followed: number[] = [];
    const stop = log.follow(redis.client(), 0, (batch) => followed.push(...batch.map((e) => e.seq)));
    await until(() => followed.length === 2);
    expect(followed).toEqual([1, 4]);
    stop();
  });

  it("a malformed base state or log event does not stop a session's restore", async () => {
    const r = redis.client();
    await r.set("sb:state:b2:s1", "{not json");
    await r.xadd("sb:log:b2:s1", "1-0", "f", '{"type":"message.removed","messageId":"m","seq":1}');
    await r.xadd("sb:log:b2:s1", "2-0", "f", '{"type":"no.such.event","seq":2}');
    await r.xadd("sb:log:b2:s1", "3-0", "f", '{"type":"message.removed","messageId":"m","seq":999}');
    const journal = new RedisSessionJournal(r, () => undefined);
    const restored = await journal.restore("b2", "s1");
    expect(restored.checkpoint).toBeUndefined();
    expect(restored.entries.map((e) => e.seq)).toEqual([1]);
  });

  it("a session log is bounded in bytes as well as entries; an oversized event is kept as a stream.reset", async () => {
    const r = redis.client();
    await r.set("sb:lease:b3", "R:1");
    const log = new SessionLog(r, "b3", "s1", { maxEntries: 10_000, maxBytes: 10_000 });
    for (let seq = 1; seq <= 40; seq++) await log.append("R:1", [{ seq, frame: `${seq}`.padEnd(1000, "x") }]);
    const kept = await log.after(0);
    expect(kept.reduce((n, e) => n + e.frame.length, 0)).toBeLessThanOrEqual(10_000);
    expect(kept.at(-1)?.seq).toBe(40);
    expect(kept.length).toBeGreaterThanOrEqual(9);
    expect(Number(await r.get("sb:logbytes:b3:s1"))).toBe(kept.reduce((n, e) => n + e.frame.length, 0));

    await log.append("R:1", [{ seq: 41, frame: "y".repeat(MAX_FRAME_BYTES + 1) }]);
    const last = (await log.after(40))[0]!;
    expect(last.seq).toBe(41);
    expect(JSON.parse(last.frame)).toMatchObject({ type: "stream.reset", seq: 41 });
  });

  it("a malformed relay message or backend description is skipped; the next good one is relayed", async () => {
    const r = redis.client();
    await r.hset("sb:backend-info", "zot", "{broken");
    const emitted: GlobalEvent[] = [];
    const hub = { emitGlobal: (e: GlobalEvent) => emitted.push(e) } as unknown as Hub;
    const registry = {
      get: (id: string) => (id === "zot" ? {} : undefined),
      runsHere: () => false,
      rememberRemote() {},
      rememberRemotePending() {},
    } as unknown as BackendRegistry;
    const relay = new GlobalRelay(r, redis.client(), "A", hub, registry);
    await relay.start();
    const good = { type: "session.status", backendId: "zot", sessionId: "s", status: "idle" };
    for (const m of [
      "not json",
      JSON.stringify({ from: 1, event: good }),
      JSON.stringify({ from: "B", event: { type: "no.such" } }),
      JSON.stringify({ from: "B", event: good }),
    ])
      await r.publish("sb:global", m);
    await until(() => emitted.length === 1);
    expect(emitted).toEqual([good]);
    relay.stop();
  });
});
