/**
 * Web Push end to end on the server (docs/push.md): the real routes, store, hub, redactor and
 * `web-push`, sending to the tests' own push service (testkit/push-service.ts), which verifies
 * each message's VAPID JWT and decrypts it with the subscription's private key as a browser
 * vendor's service would.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "@/testkit/until";
import type { Interrupt } from "@/lib/model";
import { type PushDevice, PushPayload } from "@/lib/push-api";
import { GET as getKey } from "@/app/api/push/key/route";
import { GET as listDevices, POST as subscribe } from "@/app/api/push/subscriptions/route";
import { DELETE as unsubscribe, PATCH as patchDevice } from "@/app/api/push/subscriptions/[subscriptionId]/route";
import { POST as testPush } from "@/app/api/push/test/route";
import { startPushService, type PushService as TestPushService } from "../../testkit/push-service";
import type { ConsoleApp } from "../app";
import { personSession, SESSION_COOKIE } from "../auth/console-auth";
import { registerSecret } from "../redaction/redact";
import { SecretBox, secretKey } from "../auth/secret-box";
import { sealedStore } from "../backends/stored-secrets";
import { Hub } from "../hub/hub";
import { SqliteStore } from "../store/sqlite-store";
import { PushService } from "./service";
import { SUBSCRIPTION_PREFIX } from "./subscriptions";
import { VAPID_KEY } from "./vapid";

const g = globalThis as typeof globalThis & { __switchboard?: ConsoleApp };
const CONSOLE_TOKEN = "sbtok-7fQ2kLm9Xw3vRt8Yp1Zs4Nb6";
const GITHUB_TOKEN = `ghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}`;

let svc: TestPushService;
let store: SqliteStore;
let hub: Hub;
let push: PushService;

const saved = { token: process.env.SWITCHBOARD_TOKEN, data: process.env.SWITCHBOARD_DATA_DIR };
let dataDir: string;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-push-"));
  process.env.SWITCHBOARD_TOKEN = CONSOLE_TOKEN;
  process.env.SWITCHBOARD_DATA_DIR = dataDir;
  svc = await startPushService();
  store = new SqliteStore(":memory:");
  hub = new Hub(() => undefined);
  push = new PushService(store, hub, {
    agent: svc.agent,
    retryBaseMs: 1,
    env: { SWITCHBOARD_PUSH_SERVICES: svc.host, SWITCHBOARD_VAPID_SUBJECT: "mailto:ops@example.org" },
  });
  hub.observe(push.notifier);
  registerSecret(CONSOLE_TOKEN);
  g.__switchboard = { store, hub, push, ready: Promise.resolve() } as unknown as ConsoleApp;
});
afterAll(async () => {
  hub.stop();
  store.close();
  await svc.stop();
  if (saved.token === undefined) delete process.env.SWITCHBOARD_TOKEN;
  else process.env.SWITCHBOARD_TOKEN = saved.token;
  if (saved.data === undefined) delete process.env.SWITCHBOARD_DATA_DIR;
  else process.env.SWITCHBOARD_DATA_DIR = saved.data;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const ctx = <P>(params: P) => ({ params: Promise.resolve(params) });
/** The console token's requests (every device is theirs to see), or a signed-in person's. */
const asToken = { authorization: `Bearer ${CONSOLE_TOKEN}` };
const person = (id: string, name: string) => ({
  cookie: `${SESSION_COOKIE}=${personSession({ user: { id, name, email: "" }, role: "viewer" }).cookieValue}`,
});
const post = (url: string, body: unknown, who: Record<string, string> = asToken) =>
  new Request(`http://localhost${url}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...who },
    body: JSON.stringify(body),
  });
const call = (method: string, body?: unknown, who: Record<string, string> = asToken) =>
  new Request("http://localhost/x", {
    method,
    headers: { "content-type": "application/json", ...who },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

async function add(
  sub: { endpoint: string; keys: { p256dh: string; auth: string } },
  extra: object = {},
  who: Record<string, string> = asToken,
) {
  const body = { endpoint: sub.endpoint, keys: sub.keys, expirationTime: null, ...extra };
  const res = await subscribe(post("/api/push/subscriptions", body, who), ctx({}));
  return { status: res.status, body: (await res.json()) as { id?: string; error?: { message: string } } };
}

function clear() {
  for (const [k] of store.listMeta(SUBSCRIPTION_PREFIX)) store.deleteMeta(k);
}

const permission = (id: string, command: string): Interrupt => ({
  id,
  sessionId: "s1",
  kind: "permission",
  createdAt: 1,
  title: "bash",
  permission: {
    action: "bash",
    patterns: [command],
    options: [
      { id: "once", label: "Allow once", kind: "allow_once" },
      { id: "no", label: "Reject", kind: "reject" },
    ],
  },
});

describe("subscriptions", () => {
  it("the key is the 65-byte uncompressed P-256 point, the same on every call", async () => {
    const a = (await (await getKey(new Request("http://localhost/api/push/key"), ctx({}))).json()) as {
      publicKey: string;
    };
    const raw = Buffer.from(a.publicKey, "base64url");
    expect(raw.length).toBe(65);
    expect(raw[0]).toBe(4);
    expect(push.publicKey()).toBe(a.publicKey);
  });

  it("refuses an http endpoint, a host off the allow-list and the 51st device, each with a sentence", async () => {
    clear();
    const sub = svc.subscribe();
    const http = await add({ ...sub, endpoint: sub.endpoint.replace("https:", "http:") });
    expect(http.status).toBe(400);
    expect(http.body.error?.message).toBe("A push endpoint must be an https: URL");
    const off = await add({ ...sub, endpoint: "https://push.evil.example/x" });
    expect(off.status).toBe(400);
    expect(off.body.error?.message).toMatch(/push.evil.example is not a known push service/);
    for (let i = 0; i < 50; i++) expect((await add(svc.subscribe())).status).toBe(201);
    const again = await add(svc.subscribe());
    expect(again.status).toBe(400);
    expect(again.body.error?.message).toMatch(/at most 50 devices/);
    const huge = await add(sub, { label: "x".repeat(20_000) });
    expect(huge.status).toBe(413);
    clear();
  });

  it("lists devices without their keys; a device is renewed by endpoint, patched and removed", async () => {
    clear();
    const sub = svc.subscribe();
    const first = await add(sub, { label: "Phone" });
    expect(first.status).toBe(201);
    expect((await add(sub)).body.id).toBe(first.body.id);
    const listed = await (await listDevices(call("GET"), ctx({}))).text();
    expect(listed).not.toContain(sub.keys.auth);
    expect(listed).not.toContain(sub.keys.p256dh);
    expect(listed).not.toContain(sub.endpoint);
    expect(JSON.parse(listed).items).toEqual([
      expect.objectContaining({ id: first.body.id, label: "Phone", service: svc.host, turns: true }),
    ]);
    const id = first.body.id as string;
    const patched = await patchDevice(call("PATCH", { turns: false }), ctx({ subscriptionId: id }));
    expect(((await patched.json()) as { turns: boolean }).turns).toBe(false);
    const del = () => unsubscribe(call("DELETE"), ctx({ subscriptionId: id }));
    expect((await del()).status).toBe(204);
    expect((await del()).status).toBe(404);
  });

  it("each person lists, changes, tests and removes only their own devices; the console token sees all", async () => {
    clear();
    const olga = person("sub-olga", "Olga");
    const amir = person("sub-amir", "Amir");
    const a = (await add(svc.subscribe(), { label: "Olga's phone" }, olga)).body.id as string;
    const b = (await add(svc.subscribe(), { label: "Amir's laptop" }, amir)).body.id as string;
    const list = async (who: Record<string, string>) =>
      ((await (await listDevices(call("GET", undefined, who), ctx({}))).json()) as { items: PushDevice[] }).items;
    expect((await list(olga)).map((d) => [d.label, d.owner?.name])).toEqual([["Olga's phone", "Olga"]]);
    expect((await list(amir)).map((d) => d.id)).toEqual([b]);
    expect((await list(asToken)).map((d) => d.owner?.name)).toEqual(["Olga", "Amir"]);
    // Someone else's device is not there, whatever the call.
    expect((await patchDevice(call("PATCH", { turns: false }, olga), ctx({ subscriptionId: b }))).status).toBe(404);
    expect((await testPush(post("/api/push/test", { id: b }, olga), ctx({}))).status).toBe(404);
    expect((await unsubscribe(call("DELETE", undefined, olga), ctx({ subscriptionId: b }))).status).toBe(404);
    expect(push.subscriptions.get(b)?.turns).toBe(true);
    // Their own: yes.
    expect((await patchDevice(call("PATCH", { turns: false }, olga), ctx({ subscriptionId: a }))).status).toBe(200);
    expect((await unsubscribe(call("DELETE", undefined, amir), ctx({ subscriptionId: b }))).status).toBe(204);
    expect((await list(asToken)).map((d) => [d.id, d.turns])).toEqual([[a, false]]);
    clear();
  });
});

describe("sending", () => {
  it("a raised interrupt reaches every device once, signed, encrypted, urgent and redacted; its resolution closes it", async () => {
    clear();
    const a = svc.subscribe();
    const b = svc.subscribe();
    await add(a);
    await add(b);
    const command = `curl -H "Authorization: Bearer ${CONSOLE_TOKEN}" https://api.github.com?t=${GITHUB_TOKEN}`;
    hub.publish("b1", "s1", { type: "interrupt.requested", interrupt: permission("perm-1", command) });
    // The same interrupt announced again (a reconnect's reload) is not pushed again.
    hub.publish("b1", "s1", { type: "interrupt.requested", interrupt: permission("perm-1", command) });
    const [pa] = await until(() => (svc.received(a.id).length ? svc.received(a.id) : undefined), "the push to A");
    await until(() => svc.received(b.id).length > 0, "the push to B");
    expect(pa?.status).toBe(201);
    expect(pa?.urgency).toBe("high");
    expect(pa?.ttl).toBeGreaterThan(0);
    expect(pa?.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    expect(pa?.claims).toMatchObject({ aud: svc.origin, sub: "mailto:ops@example.org" });
    expect(pa?.vapidKey).toBe(push.publicKey());
    const payload = PushPayload.parse(JSON.parse(pa?.payload ?? ""));
    expect(payload).toMatchObject({
      kind: "interrupt",
      backendId: "b1",
      sessionId: "s1",
      interruptId: "perm-1",
      interruptKind: "permission",
      actions: ["allow-once", "reject"],
      url: "/sessions/b1/s1",
      tag: pa?.topic,
    });
    expect(payload.body).toContain("curl");
    expect(payload.body).toContain("[REDACTED:");
    expect(pa?.payload).not.toContain(CONSOLE_TOKEN);
    expect(pa?.payload).not.toContain(GITHUB_TOKEN);

    hub.publish("b1", "s1", { type: "interrupt.resolved", interruptId: "perm-1", outcome: "answered elsewhere" });
    await until(() => svc.received(a.id).length === 2, "the resolution push");
    const closing = svc.received(a.id)[1];
    expect(closing?.topic).toBe(pa?.topic);
    expect(JSON.parse(closing?.payload ?? "")).toMatchObject({
      kind: "resolved",
      interruptId: "perm-1",
      tag: pa?.topic,
    });
    expect(svc.received(a.id).filter((r) => JSON.parse(r.payload ?? "{}").kind === "interrupt")).toHaveLength(1);
  });

  it("a device the push service forgot (410) is removed", async () => {
    clear();
    const a = svc.subscribe();
    const { body } = await add(a);
    svc.answer(a.id, 410);
    hub.publish("b1", "s1", { type: "interrupt.requested", interrupt: permission("perm-410", "ls") });
    await until(() => svc.received(a.id).length === 1, "the push");
    await until(() => !push.subscriptions.get(body.id as string), "the subscription removed");
    expect(push.list()).toEqual([]);
  });

  it("429 and 5xx are retried; the device stays and records the send", async () => {
    clear();
    const a = svc.subscribe();
    const { body } = await add(a);
    svc.answer(a.id, 429, 503);
    hub.publish("b1", "s1", { type: "interrupt.requested", interrupt: permission("perm-429", "ls") });
    await until(() => svc.received(a.id).length === 3, "two retries");
    expect(svc.received(a.id).map((r) => r.status)).toEqual([429, 503, 201]);
    await until(() => push.subscriptions.get(body.id as string)?.lastSentAt, "lastSentAt recorded");
    expect(push.subscriptions.get(body.id as string)?.lastError).toBeNull();
  });

  it("a turn that finished with no tab watching goes (urgency normal) to the devices that want turns", async () => {
    clear();
    const wants = svc.subscribe();
    const not = svc.subscribe();
    await add(wants);
    await add(not, { turns: false });
    hub.publish("b1", "s2", { type: "session.status", status: "busy" });
    hub.publish("b1", "s2", { type: "session.status", status: "idle" });
    await until(() => svc.received(wants.id).length === 1, "the turn push");
    expect(svc.received(wants.id)[0]?.urgency).toBe("normal");
    expect(JSON.parse(svc.received(wants.id)[0]?.payload ?? "")).toMatchObject({ kind: "turn", sessionId: "s2" });
    // A test push to the other device proves it is reachable, so its silence above was the toggle.
    const id = push.list().find((d) => !d.turns)?.id as string;
    const res = await testPush(post("/api/push/test", { id }), ctx({}));
    expect(await res.json()).toMatchObject({ ok: true, status: 201 });
    expect(svc.received(not.id).map((r) => JSON.parse(r.payload ?? "").kind)).toEqual(["test"]);
  });
});

describe("at rest", () => {
  it("the VAPID private key and each device's keys are sealed in the store", async () => {
    const raw = new SqliteStore(":memory:");
    const sealed = sealedStore(raw, new SecretBox(secretKey(randomBytes(32))), () => {});
    const at = new PushService(sealed, hub, { env: { SWITCHBOARD_PUSH_SERVICES: svc.host } });
    const publicKey = at.publicKey();
    const sub = svc.subscribe();
    const { id } = at.subscriptions.add({ endpoint: sub.endpoint, keys: sub.keys });
    const rows = raw.listMeta("push-");
    expect(rows.map(([k]) => k).sort()).toEqual([`${SUBSCRIPTION_PREFIX}${id}`, VAPID_KEY].sort());
    for (const [, v] of rows) {
      expect(v.startsWith("enc:v1:")).toBe(true);
      expect(v).not.toContain(sub.keys.auth);
      expect(v).not.toContain(publicKey);
    }
    // Read back through the sealed view, the same key and device.
    expect(at.publicKey()).toBe(publicKey);
    expect(at.subscriptions.get(id)?.auth).toBe(sub.keys.auth);
    raw.close();
  });
});
