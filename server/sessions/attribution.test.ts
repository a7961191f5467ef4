import { testConsoleApp } from "@/testkit/console-app";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InterruptAnswer } from "@/lib/api";
import type {
  Backend,
  Capabilities,
  Interrupt,
  Message,
  MessageInfo,
  Session,
  Snapshot,
  TimelineEvent,
} from "@/lib/model";
import { until } from "@/testkit/until";
import { type PostgresServer, startPostgres } from "../../testkit/postgres-server";
import type { ConsoleApp } from "../app";
import { personSession, SESSION_COOKIE } from "../auth/console-auth";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import { ApiError } from "../errors";
import { ACTING_PERSON_HEADER } from "../auth/acting-person";
import { Hub } from "../hub/hub";
import { Lineage } from "../lineage";
import { CachedStore } from "../store/cached-store";
import { PostgresStore } from "../store/postgres-store";
import { SqliteStore } from "../store/sqlite-store";
import { Attribution, attributionKey } from "./attribution";
import { POST as answerRoute } from "@/app/api/backends/[backendId]/sessions/[sessionId]/interrupts/[interruptId]/route";
import { POST as promptRoute } from "@/app/api/backends/[backendId]/sessions/[sessionId]/prompt/route";
import { POST as forkRoute } from "@/app/api/backends/[backendId]/sessions/[sessionId]/fork/route";
import { GET as messagesRoute } from "@/app/api/backends/[backendId]/sessions/[sessionId]/messages/route";
import { GET as snapshotRoute } from "@/app/api/backends/[backendId]/sessions/[sessionId]/snapshot/route";
import { POST as createRoute } from "@/app/api/backends/[backendId]/sessions/route";

/**
 * Who did what in a session (docs/people.md, "Attribution"), through the real route handlers, hub,
 * reducer and store: two people on one session, the console token, a restart, a failed prompt, a
 * forged header, and the same record read by a second replica on a real PostgreSQL.
 */

const CAPS: Capabilities = {
  fork: true,
  revert: false,
  diff: false,
  compact: false,
  models: false,
  share: false,
  history: true,
  abort: false,
  rename: false,
  delete: false,
  search: false,
  directories: false,
  interrupts: { permission: true, question: false, input: false },
};

/** An agent that echoes each prompt as a user message and asks permission once per turn. */
class EchoAdapter implements BackendAdapter {
  readonly id = "echo";
  sessions = new Map<string, { session: Session; messages: Message[]; interrupts: Interrupt[] }>();
  hub: Hub | undefined;
  failNext = false;
  private n = 0;
  info(): Backend {
    return { id: this.id, kind: "opencode", label: "Echo", status: "ready", capabilities: CAPS };
  }
  async start() {}
  async stop() {}
  private need(id: string) {
    const s = this.sessions.get(id);
    if (!s) throw ApiError.notFound(`Unknown session: ${id}`);
    return s;
  }
  async listSessions() {
    return { items: [...this.sessions.values()].map((s) => s.session) };
  }
  async createSession(): Promise<Session> {
    const id = `ses_${++this.n}`;
    const session: Session = { id, backendId: this.id, title: "new", createdAt: 1, updatedAt: 1, status: "idle" };
    this.sessions.set(id, { session, messages: [], interrupts: [] });
    return session;
  }
  async getSession(id: string) {
    return this.need(id).session;
  }
  async loadSession(id: string): Promise<LoadedSession> {
    const s = this.need(id);
    return { session: s.session, messages: s.messages, interrupts: s.interrupts, todos: [] };
  }
  async loadMessages(id: string) {
    return { items: this.need(id).messages };
  }
  /** A message typed elsewhere (the agent's own terminal), not through the console. */
  typedElsewhere(sessionId: string, text: string) {
    const s = this.need(sessionId);
    const m: Message = {
      id: `m${++this.n}`,
      sessionId,
      role: "user",
      createdAt: Date.now(),
      blocks: [{ id: `b${this.n}`, kind: "text", text }],
    };
    s.messages.push(m);
    const { blocks: _b, ...info } = m;
    this.hub?.publish(this.id, sessionId, { type: "message.updated", message: info });
  }
  async prompt(sessionId: string, body: { parts: { type: string; text?: string }[] }) {
    if (this.failNext) {
      this.failNext = false;
      throw new ApiError("backend_down", "The agent is not answering");
    }
    const s = this.need(sessionId);
    const text = body.parts.map((p) => p.text ?? "").join("");
    const user: Message = {
      id: `m${++this.n}`,
      sessionId,
      role: "user",
      createdAt: Date.now(),
      blocks: [{ id: `b${this.n}`, kind: "text", text }],
    };
    const reply: Message = {
      id: `m${++this.n}`,
      sessionId,
      role: "assistant",
      createdAt: Date.now(),
      blocks: [{ id: `b${this.n}`, kind: "text", text: `ok: ${text}` }],
    };
    s.messages.push(user, reply);
    const interrupt: Interrupt = {
      id: `perm_${this.n}`,
      sessionId,
      kind: "permission",
      messageId: reply.id,
      createdAt: Date.now(),
      title: `run: ${text}`,
      permission: {
        action: "bash",
        patterns: [text],
        options: [
          { id: "once", label: "Allow once", kind: "allow_once" },
          { id: "no", label: "Reject", kind: "reject" },
        ],
      },
    };
    s.interrupts.push(interrupt);
    for (const m of [user, reply]) {
      const { blocks, ...info } = m;
      this.hub?.publish(this.id, sessionId, { type: "message.updated", message: info });
      for (const block of blocks)
        this.hub?.publish(this.id, sessionId, { type: "block.updated", messageId: m.id, block });
    }
    this.hub?.publish(this.id, sessionId, { type: "interrupt.requested", interrupt });
  }
  async answerInterrupt(sessionId: string, interruptId: string, answer: InterruptAnswer) {
    const s = this.need(sessionId);
    s.interrupts = s.interrupts.filter((i) => i.id !== interruptId);
    this.hub?.publish(this.id, sessionId, {
      type: "interrupt.resolved",
      interruptId,
      outcome: "decision" in answer && answer.decision === "reject" ? "reject" : "allow",
    });
  }
  async revert(id: string): Promise<Session> {
    return this.need(id).session;
  }
  async fork(id: string): Promise<Session> {
    const src = this.need(id);
    const session: Session = { ...src.session, id: `ses_${++this.n}`, title: `${src.session.title} (fork)` };
    this.sessions.set(session.id, { session, messages: [...src.messages], interrupts: [] });
    return session;
  }
  async abort() {}
}

const g = globalThis as typeof globalThis & { __switchboard?: ConsoleApp };
const saved = { token: process.env.SWITCHBOARD_TOKEN, data: process.env.SWITCHBOARD_DATA_DIR };
const TOKEN = "attribution-test-token-0123456789abcdef";
let dir: string;
const adapter = new EchoAdapter();

/** A console over the store file in `dir` (a second call is the console after a restart). */
function startConsole(): { hub: Hub; store: SqliteStore; events: TimelineEvent[] } {
  const store = new SqliteStore(path.join(dir, "switchboard.db"));
  const attribution = new Attribution(store);
  const lineage = new Lineage(store, (b, s) => attribution.session(b, s));
  const hub = new Hub(
    (id) => (id === adapter.id ? adapter : undefined),
    (b, s) => lineage.decorate(b, s),
    { annotate: attribution },
  );
  const events: TimelineEvent[] = [];
  hub.observe({ event: (_b, _s, e) => void events.push(e), sessionRemoved() {}, backendRemoved() {} });
  adapter.hub = hub;
  const backends = {
    require(id: string) {
      if (id !== adapter.id) throw ApiError.notFound(`Unknown backend: ${id}`);
      return adapter;
    },
  } as unknown as ConsoleApp["backends"];
  g.__switchboard = testConsoleApp({
    config: { dataDir: dir, workspace: dir, workspaceRoots: [dir], envBackends: [] },
    store,
    hub,
    backends,
    lineage,
    attribution,
  }) as ConsoleApp;
  return { hub, store, events };
}

let current: ReturnType<typeof startConsole>;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-attribution-"));
  process.env.SWITCHBOARD_TOKEN = TOKEN;
  process.env.SWITCHBOARD_DATA_DIR = dir;
  current = startConsole();
});
afterAll(() => {
  current.hub.stop();
  current.store.close();
  delete g.__switchboard;
  if (saved.token === undefined) delete process.env.SWITCHBOARD_TOKEN;
  else process.env.SWITCHBOARD_TOKEN = saved.token;
  if (saved.data === undefined) delete process.env.SWITCHBOARD_DATA_DIR;
  else process.env.SWITCHBOARD_DATA_DIR = saved.data;
  fs.rmSync(dir, { recursive: true, force: true });
});

const olga = { user: { id: "sub-olga", name: "Olga", email: "olga@example.test" }, role: "operator" as const };
const amir = { user: { id: "sub-amir", name: "Amir", email: "amir@example.test" }, role: "admin" as const };
const cookieOf = (p: typeof olga | typeof amir) => ({ cookie: `${SESSION_COOKIE}=${personSession(p).cookieValue}` });
const asToken = { authorization: `Bearer ${TOKEN}` };

function req(method: string, p: string, headers: Record<string, string>, body?: unknown) {
  return new Request(`http://127.0.0.1:3000${p}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}
const ctx = <P>(params: P) => ({ params: Promise.resolve(params) });

async function createSession(headers: Record<string, string>): Promise<Session> {
  const res = await createRoute(req("POST", "/api/backends/echo/sessions", headers, {}), ctx({ backendId: "echo" }));
  expect(res.status).toBe(201);
  return (await res.json()) as Session;
}
async function prompt(sessionId: string, text: string, headers: Record<string, string>) {
  return promptRoute(
    req("POST", `/api/backends/echo/sessions/${sessionId}/prompt`, headers, { parts: [{ type: "text", text }] }),
    ctx({ backendId: "echo", sessionId }),
  );
}
async function answer(sessionId: string, interruptId: string, decision: string, headers: Record<string, string>) {
  const res = await answerRoute(
    req("POST", `/api/backends/echo/sessions/${sessionId}/interrupts/${interruptId}`, headers, { decision }),
    ctx({ backendId: "echo", sessionId, interruptId }),
  );
  expect(res.status).toBe(200);
}
async function snapshot(sessionId: string): Promise<Snapshot> {
  const res = await snapshotRoute(
    req("GET", `/api/backends/echo/sessions/${sessionId}/snapshot`, asToken),
    ctx({ backendId: "echo", sessionId }),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as Snapshot;
}

describe("attribution through the routes, the hub and the store", () => {
  let sid = "";

  it("two people on one session: each message says who sent it, the answered permission who allowed it", async () => {
    const created = await createSession(asToken);
    sid = created.id;
    expect(created.createdBy).toEqual({ id: "token", name: "Console token" });
    await snapshot(sid); // a browser has the session open
    expect((await prompt(sid, "ls", cookieOf(olga))).status).toBe(202);
    expect((await prompt(sid, "pwd", cookieOf(amir))).status).toBe(202);
    const s1 = await snapshot(sid);
    expect(s1.session.createdBy).toEqual({ id: "token", name: "Console token" });
    const users = s1.messages.filter((m) => m.role === "user");
    expect(users.map((m) => [m.blocks[0]?.kind === "text" ? m.blocks[0].text : "", m.author])).toEqual([
      ["ls", { id: "sub-olga", name: "Olga" }],
      ["pwd", { id: "sub-amir", name: "Amir" }],
    ]);
    // The live events carried the same.
    const live = current.events.filter((e) => e.type === "message.updated" && e.message.role === "user");
    expect(live.map((e) => e.type === "message.updated" && e.message.author?.name)).toEqual(["Olga", "Amir"]);

    const [first, second] = s1.interrupts;
    await answer(sid, first!.id, "allow_once", cookieOf(amir));
    await answer(sid, second!.id, "reject", cookieOf(olga));
    const s2 = await snapshot(sid);
    expect(s2.interrupts).toEqual([]);
    const answered = s2.messages.flatMap((m) => (m.answered ?? []).map((a) => [m.id, a.decision, a.answeredBy.name]));
    expect(answered).toEqual([
      [first!.messageId, "allow_once", "Amir"],
      [second!.messageId, "reject", "Olga"],
    ]);
    const resolved = current.events.filter((e) => e.type === "interrupt.resolved");
    expect(resolved.map((e) => e.type === "interrupt.resolved" && e.answered?.answeredBy.name)).toEqual([
      "Amir",
      "Olga",
    ]);
  });

  it("is the same after a restart: the store, not the backend, is the source", async () => {
    current.hub.stop();
    current.store.close();
    current = startConsole();
    const s = await snapshot(sid);
    expect(s.session.createdBy?.name).toBe("Console token");
    expect(s.messages.filter((m) => m.role === "user").map((m) => m.author?.name)).toEqual(["Olga", "Amir"]);
    expect(s.messages.flatMap((m) => m.answered ?? []).map((a) => `${a.answeredBy.name}:${a.decision}`)).toEqual([
      "Amir:allow_once",
      "Olga:reject",
    ]);
  });

  it("older messages paged from the backend carry their senders and answers too", async () => {
    const res = await messagesRoute(
      req("GET", `/api/backends/echo/sessions/${sid}/messages?limit=50`, asToken),
      ctx({ backendId: "echo", sessionId: sid }),
    );
    expect(res.status).toBe(200);
    const { items } = (await res.json()) as { items: Message[] };
    expect(items.filter((m) => m.role === "user").map((m) => m.author?.name)).toEqual(["Olga", "Amir"]);
    expect(items.flatMap((m) => m.answered ?? []).map((a) => a.answeredBy.name)).toEqual(["Amir", "Olga"]);
  });

  it("a fork's creator is who forked it", async () => {
    const res = await forkRoute(
      req("POST", `/api/backends/echo/sessions/${sid}/fork`, cookieOf(olga), {}),
      ctx({ backendId: "echo", sessionId: sid }),
    );
    expect(res.status).toBe(201);
    const fork = (await res.json()) as Session;
    expect(fork.createdBy).toEqual({ id: "sub-olga", name: "Olga" });
    expect(fork.forkedFrom?.sessionId).toBe(sid);
    expect((await snapshot(fork.id)).session.createdBy?.name).toBe("Olga");
  });

  it("a failed prompt leaves nobody waiting: a message typed elsewhere next is nobody's", async () => {
    adapter.failNext = true;
    expect((await prompt(sid, "boom", cookieOf(olga))).status).toBe(503);
    adapter.typedElsewhere(sid, "typed in the agent's terminal");
    const s = await snapshot(sid);
    const last = s.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(last.author).toBeUndefined();
  });

  it("a browser cannot name someone else with the replicas' header", async () => {
    const forged = Buffer.from(JSON.stringify({ id: "sub-amir", name: "Amir" })).toString("base64url");
    expect((await prompt(sid, "whoami", { ...cookieOf(olga), [ACTING_PERSON_HEADER]: forged })).status).toBe(202);
    const s = await snapshot(sid);
    const mine = s.messages.filter((m) => m.role === "user").at(-1)!;
    expect(mine.author).toEqual({ id: "sub-olga", name: "Olga" });
  });

  it("an entry that is not what this build wrote attributes nothing and breaks nothing", async () => {
    const created = await createSession(cookieOf(olga));
    expect(created.createdBy?.name).toBe("Olga");
    current.store.setMeta(attributionKey("echo", created.id), "{not json");
    const s = await snapshot(created.id);
    expect(s.session.createdBy).toBeUndefined();
  });
});

describe("attribution on PostgreSQL: every replica reads the same record", () => {
  let server: PostgresServer;
  const stores: CachedStore[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await server?.stop();
  });

  it("what the owner recorded is stamped by another replica", async () => {
    const open = async () => {
      const s = await CachedStore.open(await PostgresStore.open(server.url));
      stores.push(s);
      return s;
    };
    const owner = new Attribution(await open());
    const other = new Attribution(await open());
    owner.sessionCreated("b", "s", { id: "sub-olga", name: "Olga" });
    owner.expectPrompt("b", "s", { id: "sub-amir", name: "Amir" });
    const e = owner.event("b", "s", {
      type: "message.updated",
      message: { id: "u1", sessionId: "s", role: "user", createdAt: Date.now() },
    });
    expect(e.type === "message.updated" && e.message.author?.name).toBe("Amir");
    owner.interruptAnswered(
      "b",
      "s",
      { id: "p1", kind: "permission", title: "rm -rf build", messageId: "a1" },
      "p1",
      undefined,
      { id: "sub-olga", name: "Olga" },
      "allow_once",
    );
    const session: Session = { id: "s", backendId: "b", title: "S", createdAt: 1, updatedAt: 1, status: "idle" };
    await until(
      () =>
        other.session("b", session).createdBy &&
        other.message<MessageInfo>("b", "s", { id: "a1", sessionId: "s", role: "assistant", createdAt: 1 }).answered,
      "the other replica sees the record",
    );
    expect(
      other.message<MessageInfo>("b", "s", { id: "u1", sessionId: "s", role: "user", createdAt: 1 }).author?.name,
    ).toBe("Amir");
    expect(
      other.message<MessageInfo>("b", "s", { id: "a1", sessionId: "s", role: "assistant", createdAt: 1 }).answered?.[0],
    ).toMatchObject({ decision: "allow_once", title: "rm -rf build", answeredBy: { name: "Olga" } });
  });
});
