import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CreateShareBody, type ShareStreamEvent } from "@/lib/api";
import type { Message, Session } from "@/lib/model";
import { isApiError } from "../errors";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import type { BackendRegistry } from "../backends/registry";
import { Hub } from "../hub/hub";
import { SqliteStore } from "../store/sqlite-store";
import { FIRST_PAGE_MESSAGES, pageMessages } from "../backends/shared/session-list";
import { SHARE_HISTORY, ShareService } from "./service";

const KEY = "sk-proj-Ab3dEf6hIj9kLmN0pQr2StU5vWx8Yz1aBcD4eFg7HiJ";
const session: Session = {
  id: "ses_1",
  backendId: "local",
  title: "Deploy",
  createdAt: 1,
  updatedAt: 1,
  status: "idle",
};
const messages: Message[] = [
  { id: "m1", sessionId: "ses_1", role: "user", createdAt: 10, blocks: [{ id: "p1", kind: "text", text: "show me" }] },
  {
    id: "m2",
    sessionId: "ses_1",
    role: "assistant",
    createdAt: 20,
    completedAt: 21,
    blocks: [{ id: "p2", kind: "text", text: `OPENAI_API_KEY=${KEY}` }],
  },
];

function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-shares-"));
  const file = path.join(dir, "db.sqlite");
  const store = new SqliteStore(file);
  const adapter = {
    id: "local",
    loadSession: async (id: string): Promise<LoadedSession> => {
      if (id !== "ses_1") throw Object.assign(new Error("no such session"), {});
      return { session, messages, interrupts: [], todos: [] };
    },
  } as unknown as BackendAdapter;
  const hub = new Hub((id) => (id === "local" ? adapter : undefined));
  const backends = {
    get: (id: string) => (id === "local" ? adapter : undefined),
    require: (id: string) => adapter ?? id,
  } as unknown as BackendRegistry;
  let now = 1_000_000;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const svc = new ShareService(store, hub, backends, { now: clock.now, failureLimit: 5, failureWindowMs: 60_000 });
  return { dir, file, store, hub, svc, clock };
}

type Ctx = ReturnType<typeof setup>;
let ctx: Ctx;
beforeEach(() => {
  ctx = setup();
});
afterEach(() => {
  ctx.hub.stop();
  ctx.store.close();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
});

const body = (over: Partial<CreateShareBody> = {}) =>
  CreateShareBody.parse({ backendId: "local", sessionId: "ses_1", ...over });

function statusOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    return isApiError(err) ? err.status : -1;
  }
  return undefined;
}

/** Reads SSE frames from a Response until `stop` says so (or the stream ends). */
async function frames(
  res: Response,
  stop: (events: ShareStreamEvent[]) => boolean,
): Promise<{ events: ShareStreamEvent[]; ended: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const events: ShareStreamEvent[] = [];
  for (;;) {
    if (stop(events)) {
      await reader.cancel();
      return { events, ended: false };
    }
    const { done, value } = await reader.read();
    if (done) return { events, ended: true };
    buf += decoder.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const data = frame.split("\n").find((l) => l.startsWith("data: "));
      if (data) events.push(JSON.parse(data.slice(6)) as ShareStreamEvent);
    }
  }
}

describe("share service", () => {
  it("stores only the token's hash", async () => {
    const created = await ctx.svc.create(body(), "http://127.0.0.1:3000");
    expect(created.url).toBe(`http://127.0.0.1:3000/share/${created.token}`);
    expect(created.state).toBe("active");
    const raw = new Database(ctx.file, { readonly: true });
    const dump = JSON.stringify(raw.prepare("SELECT * FROM shares").all());
    raw.close();
    expect(dump).not.toContain(created.token);
    expect(ctx.svc.list({ state: "all" })[0]).not.toHaveProperty("token");
  });

  it("says who made a share, in the list and the answer", async () => {
    const olga = { id: "sub-olga", name: "Olga" };
    const created = await ctx.svc.create(body(), "", olga);
    expect(created.createdBy).toEqual(olga);
    expect(ctx.svc.list({ state: "all" }).find((s) => s.id === created.id)?.createdBy).toEqual(olga);
    const anonymous = await ctx.svc.create(body(), "");
    expect(anonymous).not.toHaveProperty("createdBy");
  });

  it("serves a redacted snapshot by token", async () => {
    const { token } = await ctx.svc.create(body(), "");
    const snap = await ctx.svc.snapshot(ctx.svc.resolve(token, "ip"));
    expect(JSON.stringify(snap)).not.toContain(KEY);
    expect(JSON.stringify(snap)).toContain("[REDACTED:openai-key]");
  });

  it("unknown tokens answer 404, then 429 for that address only", async () => {
    const { token } = await ctx.svc.create(body(), "");
    for (let i = 0; i < 5; i++)
      expect(statusOf(() => ctx.svc.resolve(`nope${i}`.padEnd(43, "x"), "attacker"))).toBe(404);
    expect(statusOf(() => ctx.svc.resolve("x".repeat(43), "attacker"))).toBe(429);
    // Even a valid token: a blocked address learns nothing about which tokens exist.
    expect(statusOf(() => ctx.svc.resolve(token, "attacker"))).toBe(429);
    expect(statusOf(() => ctx.svc.resolve(token, "viewer"))).toBeUndefined();
    ctx.clock.advance(60_000);
    expect(statusOf(() => ctx.svc.resolve(token, "attacker"))).toBeUndefined();
  });

  it("a revoked share answers 404, an expired one 410", async () => {
    const a = await ctx.svc.create(body(), "");
    const b = await ctx.svc.create(body({ expiresIn: 5 }), "");
    ctx.svc.revoke(a.id);
    expect(statusOf(() => ctx.svc.resolve(a.token, "ip"))).toBe(404);
    expect(statusOf(() => ctx.svc.resolve(b.token, "ip"))).toBeUndefined();
    ctx.clock.advance(5_000);
    expect(statusOf(() => ctx.svc.resolve(b.token, "ip"))).toBe(410);
    expect(
      ctx.svc
        .list({ state: "all" })
        .map((s) => s.state)
        .sort(),
    ).toEqual(["expired", "revoked"]);
    expect(ctx.svc.list({ state: "active" })).toEqual([]);
  });

  it("revoking closes open streams at once, with a share.ended frame", async () => {
    const created = await ctx.svc.create(body(), "");
    const share = ctx.svc.resolve(created.token, "ip");
    const res = await ctx.svc.stream(share, undefined, new AbortController().signal);
    expect(ctx.svc.openStreams(created.id)).toBe(1);
    const reading = frames(res, () => false);
    ctx.svc.revoke(created.id);
    const { events, ended } = await reading;
    expect(ended).toBe(true);
    expect(events.at(-1)).toEqual({ type: "share.ended", reason: "revoked" });
    expect(ctx.svc.openStreams(created.id)).toBe(0);
  });

  it("a live share streams new events, redacted", async () => {
    const created = await ctx.svc.create(body(), "");
    const share = ctx.svc.resolve(created.token, "ip");
    const snap = await ctx.svc.snapshot(share);
    const res = await ctx.svc.stream(share, snap.seq, new AbortController().signal);
    const reading = frames(res, (ev) => ev.some((e) => e.type === "block.updated"));
    ctx.hub.publish("local", "ses_1", {
      type: "message.updated",
      message: { id: "m3", sessionId: "ses_1", role: "assistant", createdAt: 30, completedAt: 31 },
    });
    ctx.hub.publish("local", "ses_1", {
      type: "block.updated",
      messageId: "m3",
      block: { id: "p3", kind: "text", text: `again GH_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a` },
    });
    const { events } = await reading;
    const block = events.find((e) => e.type === "block.updated");
    expect(block?.type === "block.updated" && block.block.kind === "text" && block.block.text).toBe(
      "again GH_TOKEN=[REDACTED:github-token]",
    );
    for (const e of events) if ("seq" in e) expect(e.seq).toBeGreaterThan(snap.seq);
  });

  it("a frozen share never changes and its stream sends no events", async () => {
    const created = await ctx.svc.create(body({ live: false }), "");
    const share = ctx.svc.resolve(created.token, "ip");
    const before = await ctx.svc.snapshot(share);
    ctx.hub.publish("local", "ses_1", {
      type: "message.updated",
      message: { id: "m3", sessionId: "ses_1", role: "user", createdAt: 30 },
    });
    const after = await ctx.svc.snapshot(share);
    expect(after).toEqual(before);
    expect(after.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    const res = await ctx.svc.stream(share, undefined, new AbortController().signal);
    const reading = frames(res, () => false);
    ctx.hub.publish("local", "ses_1", {
      type: "block.updated",
      messageId: "m3",
      block: { id: "p3", kind: "text", text: "later" },
    });
    ctx.svc.revoke(created.id);
    const { events } = await reading;
    expect(events).toEqual([{ type: "share.ended", reason: "revoked" }]);
  });

  it("an open stream ends when the share expires", async () => {
    const created = await ctx.svc.create(body({ expiresIn: 1 }), "");
    const share = ctx.svc.resolve(created.token, "ip");
    ctx.clock.advance(1_000);
    const res = await ctx.svc.stream(share, undefined, new AbortController().signal);
    const { events, ended } = await frames(res, () => false);
    expect(ended).toBe(true);
    expect(events.at(-1)).toEqual({ type: "share.ended", reason: "expired" });
  });

  it("up to a message: the message must exist", async () => {
    await expect(ctx.svc.create(body({ upToMessageId: "nope" }), "")).rejects.toMatchObject({ code: "bad_request" });
    const c = await ctx.svc.create(body({ upToMessageId: "m1" }), "");
    const snap = await ctx.svc.snapshot(ctx.svc.resolve(c.token, "ip"));
    expect(snap.messages.map((m) => m.id)).toEqual(["m1"]);
  });

  it("custom patterns apply to existing shares and are validated", async () => {
    const { token } = await ctx.svc.create(body(), "");
    expect(() => ctx.svc.addPattern({ label: "bad", pattern: "(a+)+", regex: true })).toThrow(/Nested/);
    const p = ctx.svc.addPattern({ label: "Codename", pattern: "show me", regex: false });
    expect(p.kind).toBe("codename");
    const snap = await ctx.svc.snapshot(ctx.svc.resolve(token, "ip"));
    expect(JSON.stringify(snap)).toContain("[REDACTED:codename]");
    ctx.svc.deletePattern(p.id);
    expect(JSON.stringify(await ctx.svc.snapshot(ctx.svc.resolve(token, "ip")))).not.toContain("[REDACTED:codename]");
    expect(ctx.svc.redactionSettings().builtin.length).toBeGreaterThan(10);
  });

  it("the preview counts redactions and never shows the secret", async () => {
    const p = await ctx.svc.preview({ backendId: "local", sessionId: "ses_1", includeToolOutput: true });
    expect(p.redactions.total).toBe(1);
    expect(p.redactions.byKind).toEqual({ "openai-key": 1 });
    expect(JSON.stringify(p)).not.toContain(KEY);
  });
});

describe("share service: a long session", () => {
  it("holds SHARE_HISTORY messages though the console's first page is smaller, older ones read from the backend", async () => {
    const all: Message[] = Array.from({ length: 150 }, (_, i) => ({
      id: `m${String(i).padStart(3, "0")}`,
      sessionId: "ses_1",
      role: i % 2 ? "assistant" : "user",
      createdAt: 100 + i,
      ...(i % 2 ? { completedAt: 100 + i } : {}),
      blocks: [{ id: `p${i}`, kind: "text", text: `message ${i}` }],
    }));
    const pages: string[] = [];
    let unreachable = false;
    const adapter = {
      id: "local",
      loadSession: async (): Promise<LoadedSession> => {
        const page = pageMessages(all, { limit: FIRST_PAGE_MESSAGES });
        return { session, messages: page.items, interrupts: [], todos: [], olderCursor: page.nextCursor };
      },
      loadMessages: async (_id: string, q: { before?: string; limit: number }) => {
        if (unreachable) throw new Error("OpenCode is not reachable: fetch failed");
        pages.push(`${q.before}:${q.limit}`);
        return pageMessages(all, { before: q.before, limit: Math.min(q.limit, 30) });
      },
    } as unknown as BackendAdapter;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-shares-"));
    const store = new SqliteStore(path.join(dir, "db.sqlite"));
    const hub = new Hub((id) => (id === "local" ? adapter : undefined));
    const backends = { get: () => adapter, require: () => adapter } as unknown as BackendRegistry;
    const svc = new ShareService(store, hub, backends, {
      now: () => 1_000_000,
      failureLimit: 5,
      failureWindowMs: 60_000,
    });
    try {
      const ids = (ms: { id: string }[]) => ms.map((m) => m.id);
      const newest = ids(all.slice(-SHARE_HISTORY));
      const preview = await svc.preview({ backendId: "local", sessionId: "ses_1", includeToolOutput: false });
      expect(preview.messages).toBe(SHARE_HISTORY);
      expect(preview.hasOlder).toBe(true);
      // Pages of at most 30 (the backend's own limit) until 100 are held, then no more reads.
      expect(pages).toEqual(["m110:60", "m080:30"]);

      const live = await svc.create(body({ live: true }), "");
      const snap = await svc.snapshot(svc.resolve(live.token, "ip"));
      expect(ids(snap.messages)).toEqual(newest);
      expect(snap.hasOlder).toBe(true);

      // "Up to here" on a message older than the console's first page, frozen.
      const frozen = await svc.create(body({ live: false, upToMessageId: "m070" }), "");
      const upTo = await svc.snapshot(svc.resolve(frozen.token, "ip"));
      expect(ids(upTo.messages)).toEqual(ids(all.slice(50, 71)));
      // The console's own copy of the session is unchanged: its first page.
      expect(ids((await hub.open("local", "ses_1")).state.messages)).toEqual(ids(all.slice(-FIRST_PAGE_MESSAGES)));

      // A backend that cannot be read now: the share shows what the console holds, and says there is more.
      unreachable = true;
      const fallback = await svc.snapshot(svc.resolve(live.token, "ip"));
      expect(ids(fallback.messages)).toEqual(ids(all.slice(-FIRST_PAGE_MESSAGES)));
      expect(fallback.hasOlder).toBe(true);
    } finally {
      hub.stop();
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
