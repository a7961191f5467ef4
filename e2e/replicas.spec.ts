/**
 * Replica mode (docs/architecture.md, "Replicas"): consoles A and B on one PostgreSQL and one Redis
 * (real servers, nothing mocked at the SQL or Redis level) behind a round-robin proxy without
 * stickiness (testkit/replica-stack.ts). One replica holds the zot backend's lease and runs its
 * agents; requests that reach the other are forwarded to it.
 */
import { fromAddress } from "../testkit/loopback-client";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import type { CreatedShare } from "../lib/api";
import type { Session, Snapshot, WireEvent } from "../lib/model";
import { expect, test } from "@playwright/test";
import {
  LEASE_TTL_MS,
  REPLICA_OPAL,
  REPLICA_OPENCODE,
  REPLICA_ZOT,
  type ReplicaName,
  type ReplicaStack,
  startReplicaStack,
} from "../testkit/replica-stack";
import { openSse } from "../testkit/sse";
import { type PushService, startPushService } from "../testkit/push-service";
import { SessionPage } from "./pages/session-page";
import { applyAll, stateFromSnapshot } from "../lib/timeline/reducer";
import type { Page } from "@playwright/test";

let stack: ReplicaStack;
/** The tests' own push service (testkit/push-service.ts), trusted by both replicas. */
let pushService: PushService;

test.describe.configure({ mode: "serial" });
test.setTimeout(180_000);

test.beforeAll(async () => {
  test.setTimeout(240_000);
  pushService = await startPushService();
  stack = await startReplicaStack({
    env: { NODE_EXTRA_CA_CERTS: pushService.caFile, SWITCHBOARD_PUSH_SERVICES: pushService.host },
  });
});
test.afterAll(async () => {
  await stack?.stop();
  await pushService?.stop();
});

/** Logs a page in through the proxy (the cookie is good on every replica: they share the token). */
async function loginPage(page: Page): Promise<void> {
  const login = await fetch(`${stack.proxy.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stack.proxy.url },
    body: JSON.stringify({ token: stack.token }),
  });
  const cookie = /sb_session=([^;]+)/.exec(login.headers.get("set-cookie") ?? "")?.[1] ?? "";
  await page
    .context()
    .addCookies([{ name: "sb_session", value: cookie, url: stack.proxy.url, httpOnly: true, sameSite: "Strict" }]);
}

const other = (r: ReplicaName): ReplicaName => (r === "A" ? "B" : "A");
const url = (r: ReplicaName) => stack.replicas[r].url;
const json = { "content-type": "application/json" };

async function createSession(base: string, title: string): Promise<Session> {
  const r = await fetch(`${base}/api/backends/${REPLICA_ZOT}/sessions`, {
    method: "POST",
    headers: { ...stack.headers, ...json },
    body: JSON.stringify({ title }),
  });
  expect(r.status, await r.clone().text()).toBe(201);
  return (await r.json()) as Session;
}

async function prompt(base: string, sessionId: string, text: string): Promise<void> {
  const r = await fetch(`${base}/api/backends/${REPLICA_ZOT}/sessions/${sessionId}/prompt`, {
    method: "POST",
    headers: { ...stack.headers, ...json },
    body: JSON.stringify({ parts: [{ type: "text", text }] }),
  });
  expect(r.status, await r.clone().text()).toBe(202);
}

async function snapshot(base: string, sessionId: string): Promise<Snapshot> {
  const r = await fetch(`${base}/api/backends/${REPLICA_ZOT}/sessions/${sessionId}/snapshot`, {
    headers: stack.headers,
  });
  expect(r.status).toBe(200);
  return (await r.json()) as Snapshot;
}

const texts = (snap: Snapshot, kind: "text" | "notice") =>
  snap.messages.flatMap((m) => m.blocks.flatMap((b) => (b.kind === kind ? [b.text] : [])));

/** The reply streamed whole (zot sends the text as deltas), then the session went idle. */
const turnEnded = (reply: string) => (evs: WireEvent[]) =>
  evs
    .map((e) => (e.type === "block.delta" && e.field === "text" ? e.delta : ""))
    .join("")
    .includes(reply) && evs.some((e) => e.type === "session.status" && e.status === "idle");

test.describe("replicas on PostgreSQL and Redis", () => {
  // A failed test keeps what the replicas logged about leases and forwarding, to tell a load-starved
  // lease from a defect.
  // biome-ignore lint/correctness/noEmptyPattern: Playwright's hooks take their fixtures destructured
  test.afterEach(async ({}, testInfo) => {
    if (testInfo.status === testInfo.expectedStatus) return;
    for (const name of ["A", "B"] as const)
      await testInfo.attach(`replica ${name} log`, { body: stack.replicas[name].logs.join("\n") });
  });
  test("one replica runs the stdio agent; the other lists its sessions, streams its turn and resumes a cursor", async () => {
    const owner = await stack.waitForOwner();
    const peer = other(owner);
    // A session made through one replica is listed through the other.
    const s = await createSession(url(peer), "made on the peer");
    const list = await fetch(`${url(owner)}/api/backends/${REPLICA_ZOT}/sessions`, { headers: stack.headers });
    expect(((await list.json()) as { items: Session[] }).items.map((x) => x.id)).toContain(s.id);
    const list2 = await fetch(`${url(peer)}/api/backends/${REPLICA_ZOT}/sessions`, { headers: stack.headers });
    expect(((await list2.json()) as { items: Session[] }).items.map((x) => x.id)).toContain(s.id);

    // A turn prompted through the proxy streams live on the replica that does not run the agent.
    const reply = "Replicated answer, streamed through the other replica.";
    stack.model.enqueue({ text: reply, chunks: 10, delayMs: 40 });
    const snap = await snapshot(stack.proxy.url, s.id);
    const live = await openSse(`${url(peer)}/api/backends/${REPLICA_ZOT}/sessions/${s.id}/events`, {
      ...stack.headers,
      "last-event-id": String(snap.seq),
    });
    await prompt(stack.proxy.url, s.id, "answer through the replicas");
    await live.waitFor(turnEnded(reply), 60_000);
    live.close();
    const seqs = live.events.map((e) => e.seq);
    expect(seqs.every((n, i) => i === 0 || n > seqs[i - 1]!)).toBe(true);
    expect(seqs[0]).toBeGreaterThan(snap.seq);
    expect(live.events.some((e) => e.type === "stream.reset")).toBe(false);
    expect(live.events.filter((e) => e.type === "block.delta").length).toBeGreaterThan(3);
    // The session's zot process runs once across both replicas, in the owner's process tree.
    const procs = stack.zotProcesses();
    expect(procs.length).toBe(1);
    expect(procs[0]?.replica).toBe(owner);

    // A cursor taken from that stream resumes on the owner: exactly the events after it.
    const cut = seqs[Math.floor(seqs.length / 2)]!;
    const resumed = await openSse(`${url(owner)}/api/backends/${REPLICA_ZOT}/sessions/${s.id}/events`, {
      ...stack.headers,
      "last-event-id": String(cut),
    });
    const last = seqs[seqs.length - 1]!;
    await resumed.waitFor((evs) => evs.some((e) => e.seq >= last), 20_000);
    resumed.close();
    expect(resumed.events.filter((e) => e.seq <= last).map((e) => e.seq)).toEqual(seqs.filter((n) => n > cut));
    expect(texts(await snapshot(url(peer), s.id), "text")).toContain(reply);
  });

  test("a browser through the proxy, with no stickiness, lists the backend as ready, streams a turn and answers it live whichever replica each request reaches", async ({
    page,
  }) => {
    const owner = await stack.waitForOwner();
    const s = await createSession(url(other(owner)), "in the browser");
    await loginPage(page);
    const served = { ...Object.fromEntries(stack.proxy.served) };
    const sp = new SessionPage(page);
    await page.goto(`${stack.proxy.url}/sessions/${REPLICA_ZOT}/${s.id}`);
    await expect(sp.view).toHaveAttribute("data-loaded", "true");
    await expect(sp.connection).toHaveAttribute("data-state", "connected");
    // Both replicas list zot as their owner described it: ready.
    for (const r of ["A", "B"] as const) {
      const list = await fetch(`${url(r)}/api/backends`, { headers: stack.headers });
      const items = ((await list.json()) as { items: { id: string; status: string }[] }).items;
      expect(items.find((b) => b.id === REPLICA_ZOT)?.status).toBe("ready");
    }
    const reply = "Streamed to a browser that no replica holds on to.";
    stack.model.enqueue({ text: reply, chunks: 12, delayMs: 40 });
    await sp.ask("answer the browser", reply, { timeout: 30_000 });
    // The page's requests went to both replicas.
    for (const [port, n] of stack.proxy.served) expect(n).toBeGreaterThan(served[port] ?? 0);
  });

  test("a question raised by an agent one replica runs is answered through the other; a second answer gets 409", async () => {
    const owner = await stack.waitForOwner(REPLICA_OPAL);
    const peer = other(owner);
    const base = (r: ReplicaName) => `${url(r)}/api/backends/${REPLICA_OPAL}/sessions`;
    stack.model.enqueue(
      { toolCalls: [{ name: "ask_user", arguments: { question: "Which replica?", choices: ["A", "B"] } }] },
      { text: "Answered across replicas." },
    );
    const created = await fetch(base(peer), {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ title: "opal question" }),
    });
    expect(created.status).toBe(201);
    const s = (await created.json()) as Session;
    const asked = await fetch(`${base(peer)}/${s.id}/prompt`, {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ parts: [{ type: "text", text: "ask me which" }] }),
    });
    expect(asked.status).toBe(202);
    const pending = async () =>
      ((await (await fetch(`${base(peer)}/${s.id}/snapshot`, { headers: stack.headers })).json()) as Snapshot)
        .interrupts;
    await expect.poll(async () => (await pending()).length, { timeout: 30_000 }).toBe(1);
    const [interrupt] = await pending();
    // The inbox of a tab on the replica that does not run the agent lists it (a page load's hello).
    const inbox = async (r: ReplicaName) =>
      (
        (await (await fetch(`${url(r)}/api/events/hello`, { headers: stack.headers })).json()) as {
          interrupts: { id: string }[];
        }
      ).interrupts.map((i) => i.id);
    await expect.poll(() => inbox(peer), { timeout: 1_000 }).toContain(interrupt!.id);
    expect(await inbox(owner)).toContain(interrupt!.id);
    const answer = (r: ReplicaName) =>
      fetch(`${base(r)}/${s.id}/interrupts/${interrupt!.id}`, {
        method: "POST",
        headers: { ...stack.headers, ...json },
        body: JSON.stringify({ answers: [["B"]] }),
      });
    const first = await answer(peer);
    expect(first.status, await first.clone().text()).toBe(200);
    const second = await answer(owner);
    expect(second.status).toBe(409);
    const third = await answer(peer);
    expect(third.status).toBe(409);
    await expect.poll(() => inbox(peer), { timeout: 1_000 }).not.toContain(interrupt!.id);
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${base(peer)}/${s.id}/snapshot`, { headers: stack.headers })).json()) as Snapshot
          ).messages.flatMap((m) => m.blocks.flatMap((b) => (b.kind === "text" ? [b.text] : []))),
        { timeout: 30_000 },
      )
      .toContain("Answered across replicas.");
    const tool = stack.model.requests.at(-1)?.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("B");
  });

  test("web push: a device subscribed through one replica gets one push for a question the other raises, and one for its answer", async () => {
    const owner = await stack.waitForOwner(REPLICA_OPAL);
    const peer = other(owner);
    const device = pushService.subscribe();
    const subscribed = await fetch(`${url(peer)}/api/push/subscriptions`, {
      method: "POST",
      headers: { ...stack.headers, ...json },
      // Finished turns are not pushed to it: the interrupt and its answer are the events counted.
      body: JSON.stringify({ endpoint: device.endpoint, keys: device.keys, expirationTime: null, turns: false }),
    });
    expect(subscribed.status).toBe(201);
    const { id } = (await subscribed.json()) as { id: string };
    // Both replicas sign with the one key in the store, and the owner knows the device.
    const key = async (r: ReplicaName) =>
      ((await (await fetch(`${url(r)}/api/push/key`, { headers: stack.headers })).json()) as { publicKey: string })
        .publicKey;
    expect(await key(owner)).toBe(await key(peer));
    const devices = async (r: ReplicaName) =>
      (
        (await (await fetch(`${url(r)}/api/push/subscriptions`, { headers: stack.headers })).json()) as {
          items: { id: string }[];
        }
      ).items.map((d) => d.id);
    await expect.poll(() => devices(owner), { timeout: 10_000 }).toContain(id);

    const base = (r: ReplicaName) => `${url(r)}/api/backends/${REPLICA_OPAL}/sessions`;
    stack.model.enqueue(
      { toolCalls: [{ name: "ask_user", arguments: { question: "Pushed once?", choices: ["yes", "no"] } }] },
      { text: "Pushed and answered." },
    );
    const created = await fetch(base(peer), {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ title: "push across replicas" }),
    });
    const s = (await created.json()) as Session;
    await fetch(`${base(peer)}/${s.id}/prompt`, {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ parts: [{ type: "text", text: "ask me" }] }),
    });
    const kinds = () =>
      pushService
        .received(device.id)
        .filter((r) => r.status === 201)
        .map((r) => JSON.parse(r.payload ?? "{}") as { kind: string; interruptId?: string; body: string });
    await expect.poll(() => kinds().filter((p) => p.kind === "interrupt").length, { timeout: 30_000 }).toBe(1);
    const [raised] = kinds();
    expect(raised?.body).toContain("Pushed once?");
    const answered = await fetch(`${base(peer)}/${s.id}/interrupts/${raised?.interruptId}`, {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ answers: [["yes"]] }),
    });
    expect(answered.status).toBe(200);
    await expect.poll(() => kinds().filter((p) => p.kind === "resolved").length, { timeout: 30_000 }).toBe(1);
    // Two replicas, one push per event.
    expect(kinds().map((p) => p.kind)).toEqual(["interrupt", "resolved"]);
  });

  test("a logout on one replica rejects the cookie on the other; failed logins split across both are counted together; a share revoked on one ends its viewers on the other", async () => {
    // A client is its socket's address (127.0.0.x), as each replica sees it.
    const login = (r: ReplicaName, token: string, address: string) =>
      fromAddress(address, `${url(r)}/api/auth/login`, {
        method: "POST",
        headers: { ...json, origin: url(r) },
        body: JSON.stringify({ token }),
      });
    const res = await login("A", stack.token, "127.0.0.10");
    expect(res.status).toBe(200);
    const cookie = /sb_session=([^;]+)/.exec(String(res.headers["set-cookie"] ?? ""))?.[1];
    expect(cookie).toBeTruthy();
    const withCookie = { cookie: `sb_session=${cookie}` };
    expect((await fetch(`${url("B")}/api/backends`, { headers: withCookie })).status).toBe(200);
    const out = await fetch(`${url("A")}/api/auth/logout`, {
      method: "POST",
      headers: { ...withCookie, origin: url("A") },
    });
    expect(out.status).toBe(200);
    // "Within a second" is the wait's deadline, not a measurement (docs/testing.md, "Waiting").
    await expect
      .poll(async () => (await fetch(`${url("B")}/api/backends`, { headers: withCookie })).status, { timeout: 1_000 })
      .toBe(401);

    // Ten failed logins from one address, five on each replica: the eleventh is refused on either.
    const address = "127.0.0.23";
    for (let i = 0; i < 10; i++) expect((await login(i % 2 ? "B" : "A", "wrong-token", address)).status).toBe(401);
    expect((await login("A", "wrong-token", address)).status).toBe(429);
    expect((await login("B", stack.token, address)).status).toBe(429);
    expect((await login("B", stack.token, "127.0.0.24")).status).toBe(200);

    // A live share of a session the owner runs, watched on the owner, revoked through the other replica.
    const owner = await stack.waitForOwner();
    const s = await createSession(url(owner), "shared across replicas");
    const created = await fetch(`${url(owner)}/api/shares`, {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ backendId: REPLICA_ZOT, sessionId: s.id, live: true }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const share = (await created.json()) as CreatedShare;
    const viewer = await openSse(`${url(owner)}/api/shares/public/${share.token}/events`, {});
    // The other replica knows the share within a second (the store's NOTIFY).
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${url(other(owner))}/api/shares`, { headers: stack.headers })).json()) as {
              items: { id: string }[];
            }
          ).items.some((x) => x.id === share.id),
        { timeout: 1_000 },
      )
      .toBe(true);
    const revoked = await fetch(`${url(other(owner))}/api/shares/${share.id}`, {
      method: "DELETE",
      headers: stack.headers,
    });
    expect(revoked.status).toBe(200);
    await viewer.waitFor(
      (evs) => evs.some((e) => (e as { type: string; reason?: string }).type === "share.ended"),
      1_000,
    );
    viewer.close();
    expect(viewer.events.find((e) => (e as { type: string }).type === "share.ended")).toMatchObject({
      reason: "revoked",
    });
    expect((await fetch(`${url(owner)}/api/shares/public/${share.token}/snapshot`)).status).toBe(404);

    // A live share made, viewed and followed through the replica that does not run the session: the
    // share is made where the session runs, and its link names the address the request came to.
    const peer = other(owner);
    const s2 = await createSession(url(owner), "shared through the other replica");
    const made = await fetch(`${url(peer)}/api/shares`, {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ backendId: REPLICA_ZOT, sessionId: s2.id, live: true }),
    });
    expect(made.status, await made.clone().text()).toBe(201);
    const share2 = (await made.json()) as CreatedShare;
    expect(share2.url.startsWith(url(peer))).toBe(true);
    const page = await fetch(`${url(peer)}/api/shares/public/${share2.token}/snapshot`);
    expect(page.status).toBe(200);
    expect(((await page.json()) as { session: { title: string } }).session.title).toBe(
      "shared through the other replica",
    );
    const follower = await openSse(`${url(peer)}/api/shares/public/${share2.token}/events`, {});
    const answer = "Shared with a viewer on the other replica.";
    stack.model.enqueue({ text: answer });
    await prompt(url(owner), s2.id, "say it to the viewer");
    await follower.waitFor((evs) => JSON.stringify(evs).includes(answer), 30_000);
    const ended = await fetch(`${url(owner)}/api/shares/${share2.id}`, { method: "DELETE", headers: stack.headers });
    expect(ended.status).toBe(200);
    await follower.waitFor((evs) => evs.some((e) => (e as { type: string }).type === "share.ended"), 1_000);
    follower.close();
  });

  test("a backend added through one replica is listed, run once and removable through the other", async () => {
    const listed = async (r: ReplicaName) =>
      (
        (await (await fetch(`${url(r)}/api/backends`, { headers: stack.headers })).json()) as {
          items: { id: string; status: string }[];
        }
      ).items;
    const added = await fetch(`${url("A")}/api/backends`, {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({
        kind: "zot",
        label: "zot two",
        config: {
          command: ["zot", "rpc", "--provider", "openai", "--base-url", stack.model.url, "--model", "fake-model"],
          env: { OPENAI_API_KEY: "sk-scripted-zot" },
          cwd: stack.workspace,
        },
      }),
    });
    expect(added.status, await added.clone().text()).toBe(201);
    const { id } = (await added.json()) as { id: string };
    // The other replica lists it within a second (the store's NOTIFY), under the same id.
    await expect.poll(async () => (await listed("B")).some((b) => b.id === id), { timeout: 1_000 }).toBe(true);
    const owner = await stack.waitForOwner(id);
    expect((await listed(other(owner))).find((b) => b.id === id)?.status).toBe("ready");
    // Removed through the replica that does not run it: gone from both, its lease given up.
    const removed = await fetch(`${url(other(owner))}/api/backends/${id}`, {
      method: "DELETE",
      headers: stack.headers,
    });
    expect(removed.status).toBe(200);
    for (const r of ["A", "B"] as const)
      await expect.poll(async () => (await listed(r)).some((b) => b.id === id), { timeout: 1_000 }).toBe(false);
    await expect.poll(() => stack.owner(id), { timeout: 5_000 }).toBeUndefined();
  });

  test("an address planted in Redis is never contacted: an anonymous live-stream id naming it gets 404 on either replica", async () => {
    // Issue 39: the replicas used to forward this to `sb:replica:evil` with the console token.
    const seen: string[] = [];
    const listener = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "-"}`);
      req.resume();
      res.end("{}");
    });
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    const port = (listener.address() as AddressInfo).port;
    await stack.redisClient.set("sb:replica:evil", `http://127.0.0.1:${port}`, "PX", 60_000);
    try {
      for (const r of ["A", "B"] as const) {
        const res = await fetch(`${url(r)}/api/shares/public/live/evil~x`, {
          method: "PUT",
          headers: { ...json, origin: url(r) },
          body: JSON.stringify({ subscriptions: [] }),
        });
        expect(res.status).toBe(404);
      }
      expect(seen).toEqual([]);
    } finally {
      await stack.redisClient.del("sb:replica:evil");
      listener.close();
    }
  });

  test("SIGSTOP the replica that runs the stdio agent past its lease, then SIGCONT it: its late writes are refused and it stops its agent", async () => {
    const owner = await stack.waitForOwner();
    const peer = other(owner);
    const stalled = stack.replicas[owner];
    // The stalled replica is out of the proxy's reach while stopped (a request to it would hang):
    // this test talks to the peer directly.
    const s = await createSession(url(peer), "its owner stalls");
    const tail = "the part written after the stall";
    const reply = `A long answer streamed slowly, and ${tail}.`;
    stack.model.enqueue({ text: reply, chunks: 24, delayMs: 150 });
    const asked = stack.model.requests.length;
    await prompt(url(peer), s.id, "answer slowly");
    // The owner's agent has asked the model, and the reply is streaming, when the owner stalls.
    await expect.poll(() => stack.model.requests.length, { timeout: 20_000 }).toBeGreaterThan(asked);
    await new Promise((r) => setTimeout(r, 600));
    const before = stalled.logs.length;
    process.kill(stalled.child.pid!, "SIGSTOP");
    try {
      await expect.poll(() => stack.owner(), { timeout: LEASE_TTL_MS * 4 }).toBe(peer);
      // Let the model finish the reply (24 chunks, 150 ms apart, from the prompt): the stalled
      // replica's agent has it all in its pipe.
      await new Promise((r) => setTimeout(r, 24 * 150 + 500));
    } finally {
      process.kill(stalled.child.pid!, "SIGCONT");
    }
    // It runs again: its first lease check finds the lease gone and stops the agent. Whatever of
    // the agent's late output it reads first is not written (server/replicas/fenced-store.ts).
    await expect
      .poll(() => stalled.logs.slice(before).some((l) => l.includes("stopped running a backend here")), {
        timeout: 10_000,
      })
      .toBe(true);
    await expect
      .poll(() => stack.zotProcesses().filter((p) => p.replica === owner).length, { timeout: 10_000 })
      .toBe(0);
    const db = new pg.Client({ connectionString: stack.postgres.url });
    await db.connect();
    try {
      const kept = await db.query<{ text: string }>(
        "SELECT coalesce(messages, '') AS text FROM transcripts WHERE backend_id = $1 AND session_id = $2",
        [REPLICA_ZOT, s.id],
      );
      expect(kept.rows[0]?.text ?? "").not.toContain(tail);
    } finally {
      await db.end();
    }
    // The peer runs zot now, and the session goes on there.
    expect(await stack.waitForOwner(REPLICA_ZOT, 30_000)).toBe(peer);
    stack.model.enqueue({ text: "Answered by the new owner." });
    await prompt(url(peer), s.id, "are you there?");
    await expect
      .poll(async () => texts(await snapshot(url(peer), s.id), "text"), { timeout: 30_000 })
      .toContain("Answered by the new owner.");
  });

  test("kill -9 the replica that runs an external opencode serve in the middle of a reply: the stream resumes from its Last-Event-ID on the other replica with no gap, repeat or reset, and the turn ends whole", async ({
    page,
  }) => {
    const owner = await stack.waitForOwner(REPLICA_OPENCODE);
    const peer = other(owner);
    const base = (at: string) => `${at}/api/backends/${REPLICA_OPENCODE}/sessions`;
    const created = await fetch(base(stack.proxy.url), {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ title: "outlives its replica" }),
    });
    expect(created.status).toBe(201);
    const s = (await created.json()) as Session;
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
    const reply = `${words.join(" ")}.`;
    stack.model.enqueue({ text: reply, chunks: 40, delayMs: 150 });

    // A browser page through the proxy, and a stream read directly from the owner (the one that dies).
    await loginPage(page);
    const sp = new SessionPage(page);
    await page.goto(`${stack.proxy.url}/sessions/${REPLICA_OPENCODE}/${s.id}`);
    await expect(sp.view).toHaveAttribute("data-loaded", "true");
    // The owner's adapter may still be connecting to OpenCode after its lease was taken (503 until then).
    let snapRes = await fetch(`${base(url(owner))}/${s.id}/snapshot`, { headers: stack.headers });
    await expect
      .poll(
        async () => {
          snapRes = await fetch(`${base(url(owner))}/${s.id}/snapshot`, { headers: stack.headers });
          return snapRes.status;
        },
        { timeout: 30_000 },
      )
      .toBe(200);
    const snap = (await snapRes.json()) as Snapshot;
    const first = await openSse(`${base(url(owner))}/${s.id}/events`, {
      ...stack.headers,
      "last-event-id": String(snap.seq),
    });
    const prompted = await fetch(`${base(url(owner))}/${s.id}/prompt`, {
      method: "POST",
      headers: { ...stack.headers, ...json },
      body: JSON.stringify({ parts: [{ type: "text", text: "a long answer, please" }] }),
    });
    expect(prompted.status).toBe(202);
    const deltas = (evs: WireEvent[]) => evs.filter((e) => e.type === "block.delta").length;
    await first.waitFor((evs) => deltas(evs) >= 8, 60_000);
    stack.replicas[owner].child.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 100));
    first.close();
    expect(first.events.some((e) => e.type === "session.status" && e.status === "idle")).toBe(false);
    const cursor = first.events.at(-1)!.seq;

    // Reconnect through the proxy from the cursor, as a browser does, until a replica answers it.
    let second: Awaited<ReturnType<typeof openSse>> | undefined;
    const deadline = Date.now() + LEASE_TTL_MS * 10;
    while (!second) {
      second = await openSse(`${base(stack.proxy.url)}/${s.id}/events`, {
        ...stack.headers,
        "last-event-id": String(cursor),
      }).catch(() => undefined);
      if (!second) {
        if (Date.now() > deadline) throw new Error("no replica resumed the stream");
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    await second.waitFor((evs) => evs.some((e) => e.type === "session.status" && e.status === "idle"), 60_000);
    second.close();
    expect(await stack.owner(REPLICA_OPENCODE)).toBe(peer);
    const seqs = second.events.map((e) => e.seq);
    expect(seqs[0]).toBeGreaterThan(cursor);
    expect(seqs.every((n, i) => i === 0 || n > seqs[i - 1]!)).toBe(true);
    expect(second.events.some((e) => e.type === "stream.reset")).toBe(false);
    // The events seen before and after, applied to the snapshot, give the whole reply, once.
    const state = applyAll(stateFromSnapshot(snap), [...first.events, ...second.events]);
    const assistant = state.messages.filter((m) => m.role === "assistant");
    expect(assistant).toHaveLength(1);
    expect(assistant[0]!.blocks.filter((b) => b.kind === "text").map((b) => (b.kind === "text" ? b.text : ""))).toEqual(
      [reply],
    );
    // The page recovered on its own: the whole reply, once, and connected.
    await expect(sp.assistantText()).toHaveText([reply], { timeout: 30_000 });
    await expect(sp.connection).toHaveAttribute("data-state", "connected");
    await stack.restart(owner);
  });

  test("kill -9 the replica that runs the stdio agent: the other takes it over within the lease, says the agent restarted, and the next prompt works", async () => {
    const owner = await stack.waitForOwner();
    const peer = other(owner);
    const s = await createSession(stack.proxy.url, "survives its replica");
    stack.model.enqueue({ text: "First answer, before the failover." });
    await prompt(stack.proxy.url, s.id, "first question");
    await expect
      .poll(async () => texts(await snapshot(url(owner), s.id), "text"), { timeout: 30_000 })
      .toContain("First answer, before the failover.");
    // The transcript is in PostgreSQL before the owner dies (a replica killed with writes still
    // queued loses them; docs/architecture.md, "Replicas").
    const db = new pg.Client({ connectionString: stack.postgres.url });
    await db.connect();
    try {
      const kept = async () =>
        (
          await db.query<{ text: string }>(
            "SELECT coalesce(messages, '') AS text FROM transcripts WHERE backend_id = $1 AND session_id = $2",
            [REPLICA_ZOT, s.id],
          )
        ).rows[0]?.text ?? "";
      await expect.poll(kept, { timeout: 10_000 }).toContain("First answer, before the failover.");
    } finally {
      await db.end();
    }

    stack.replicas[owner].child.kill("SIGKILL");
    await expect.poll(() => stack.owner(), { timeout: LEASE_TTL_MS * 3 }).toBe(peer);
    expect(await stack.waitForOwner(REPLICA_ZOT, 30_000)).toBe(peer);
    // The dead replica's agent is gone with it; the one running now is the peer's.
    await expect.poll(() => stack.zotProcesses().every((p) => p.replica === peer), { timeout: 20_000 }).toBe(true);

    stack.model.enqueue({ text: "Second answer, from the replica that took over." });
    await prompt(stack.proxy.url, s.id, "second question");
    await expect
      .poll(async () => texts(await snapshot(stack.proxy.url, s.id), "text"), { timeout: 30_000 })
      .toContain("Second answer, from the replica that took over.");
    const after = await snapshot(url(peer), s.id);
    expect(texts(after, "text")).toContain("First answer, before the failover.");
    expect(texts(after, "notice").some((t) => t.startsWith("New zot process for this session"))).toBe(true);
  });
});
