import { testConsoleApp } from "@/testkit/console-app";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionTree } from "@/lib/api";
import type { Backend, Capabilities, Message, Session } from "@/lib/model";
import type { ConsoleApp } from "../app";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import { ApiError } from "../errors";
import { Hub } from "../hub/hub";
import { Lineage } from "../lineage";
import { SqliteStore } from "../store/sqlite-store";

const NONE: Capabilities = {
  fork: false,
  revert: false,
  diff: false,
  compact: false,
  models: false,
  share: false,
  history: false,
  abort: false,
  rename: false,
  delete: false,
  search: false,
  directories: false,
  interrupts: { permission: false, question: false, input: false },
};

const msg = (id: string, sessionId: string, role: "user" | "assistant", text: string, t: number): Message => ({
  id,
  sessionId,
  role,
  createdAt: t,
  blocks: [{ id: `${id}-p`, kind: "text", text }],
});

/** A tiny in-memory backend: sessions with messages; forks copy like OpenCode ("before" the id). */
class StubAdapter implements BackendAdapter {
  sessions = new Map<string, { session: Session; messages: Message[] }>();
  private n = 0;
  constructor(
    readonly id: string,
    private label: string,
    private caps: Capabilities,
  ) {}
  info(): Backend {
    return { id: this.id, kind: "opencode", label: this.label, status: "ready", capabilities: this.caps };
  }
  async start() {}
  async stop() {}
  add(title: string, messages: [string, "user" | "assistant", string][] = [], parentId?: string): Session {
    const id = `ses_${this.id}${++this.n}`;
    const session: Session = {
      id,
      backendId: this.id,
      title,
      createdAt: this.n,
      updatedAt: this.n,
      status: "idle",
      ...(parentId ? { parentId } : {}),
    };
    this.sessions.set(id, { session, messages: messages.map(([mid, role, text], i) => msg(mid, id, role, text, i)) });
    return session;
  }
  private need(id: string) {
    const s = this.sessions.get(id);
    if (!s) throw ApiError.notFound(`Unknown session: ${id}`);
    return s;
  }
  async listSessions() {
    return { items: [...this.sessions.values()].map((s) => s.session) };
  }
  async createSession(): Promise<Session> {
    return this.add("new");
  }
  async getSession(id: string) {
    return this.need(id).session;
  }
  async loadSession(id: string): Promise<LoadedSession> {
    const s = this.need(id);
    return {
      session: s.session,
      messages: s.messages,
      interrupts: [],
      todos: [{ content: "Ship it", status: "in_progress" }],
    };
  }
  async prompt() {}
  async revert(id: string): Promise<Session> {
    return this.need(id).session;
  }
  async fork(id: string, messageId?: string): Promise<Session> {
    const src = this.need(id);
    let upTo = src.messages.length;
    if (messageId) {
      const i = src.messages.findIndex((m) => m.id === messageId);
      if (i < 0) throw ApiError.notFound(`Unknown message: ${messageId}`);
      upTo = src.messages[i]!.role === "user" ? i : i + 1;
    }
    const s = this.add(`${src.session.title} (fork)`);
    this.need(s.id).messages = src.messages
      .slice(0, upTo)
      .map((m) => ({ ...m, id: `${m.id}-f${this.n}`, sessionId: s.id }));
    return s;
  }
  async children(id: string): Promise<Session[]> {
    return [...this.sessions.values()].map((s) => s.session).filter((s) => s.parentId === id);
  }
}

const FULL: Capabilities = {
  ...NONE,
  fork: true,
  revert: true,
  diff: false,
  children: true,
  rename: true,
  delete: true,
};
const bare = new StubAdapter("bare", "Bare Agent", NONE);
const rich = new StubAdapter("rich", "Rich Agent", FULL);
const adapters = new Map<string, BackendAdapter>([
  ["bare", bare],
  ["rich", rich],
]);

const g = globalThis as typeof globalThis & { __switchboard?: ConsoleApp };
let store: SqliteStore;
let hub: Hub;

beforeAll(() => {
  store = new SqliteStore(":memory:");
  const lineage = new Lineage(store);
  hub = new Hub(
    (id) => adapters.get(id),
    (b, s) => lineage.decorate(b, s),
  );
  const backends = {
    require(id: string) {
      const a = adapters.get(id);
      if (!a) throw ApiError.notFound(`Unknown backend: ${id}`);
      return a;
    },
  } as unknown as ConsoleApp["backends"];
  g.__switchboard = testConsoleApp({
    config: { dataDir: "/tmp", workspace: "/tmp", workspaceRoots: ["/tmp"], envBackends: [] },
    store,
    hub,
    backends,
    lineage,
  });
});

afterAll(() => {
  hub.stop();
  store.close();
  delete g.__switchboard;
});

const ctx = <P>(params: P) => ({ params: Promise.resolve(params) });
const post = (body?: unknown) =>
  new Request("http://x/api", {
    method: "POST",
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
const get = (url = "http://x/api") => new Request(url);

describe("capabilities gate the routes", () => {
  it("revert on a backend without the capability → 409 with the reason", async () => {
    const s = bare.add("plain", [["msg_1", "user", "hi"]]);
    const { POST } = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/revert/route");
    const res = await POST(post({ messageId: "msg_1" }), ctx({ backendId: "bare", sessionId: s.id }));
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { code: string; message: string; details: { capability: string } } };
    expect(body.error.code).toBe("conflict");
    expect(body.error.message).toBe("Bare Agent cannot revert or unrevert changes");
    expect(body.error.details.capability).toBe("revert");
  });

  it("every review action is a 409 on the bare backend, with the reason", async () => {
    const s = bare.add("plain");
    const p = { backendId: "bare", sessionId: s.id };
    const fork = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/fork/route");
    const unrevert = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/unrevert/route");
    const diff = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/diff/route");
    const compact = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/compact/route");
    const models = await import("@/app/api/backends/[backendId]/models/route");
    const agents = await import("@/app/api/backends/[backendId]/agents/route");
    const cases: [Response, string][] = [
      [await fork.POST(post({}), ctx(p)), "Bare Agent cannot fork sessions"],
      [await unrevert.POST(post(), ctx(p)), "Bare Agent cannot revert or unrevert changes"],
      [await diff.GET(get("http://x/api?messageId=msg_1"), ctx(p)), "Bare Agent cannot show the changes of a turn"],
      [await compact.POST(post({}), ctx(p)), "Bare Agent cannot compact a conversation"],
      [await models.GET(get(), ctx({ backendId: "bare" })), "Bare Agent cannot list or switch models"],
      [await agents.GET(get(), ctx({ backendId: "bare" })), "Bare Agent cannot switch agents or modes"],
    ];
    for (const [res, reason] of cases) {
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe(reason);
    }
  });

  it("a declared capability without an implementation is still a 409, not a crash", async () => {
    const s = rich.add("no diff impl");
    const diff = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/diff/route");
    const res = await diff.GET(get(), ctx({ backendId: "rich", sessionId: s.id }));
    expect(res.status).toBe(409);
  });

  it("bodies are validated before anything runs", async () => {
    const s = rich.add("validation");
    const { POST } = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/revert/route");
    const res = await POST(post({}), ctx({ backendId: "rich", sessionId: s.id }));
    expect(res.status).toBe(400);
    const extra = await POST(post({ messageId: "msg_1", nope: true }), ctx({ backendId: "rich", sessionId: s.id }));
    expect(extra.status).toBe(400);
  });
});

describe("fork, lineage and the tree", () => {
  const convo: [string, "user" | "assistant", string][] = [
    ["msg_1", "user", "first"],
    ["msg_2", "assistant", "one"],
    ["msg_3", "user", "second"],
    ["msg_4", "assistant", "two"],
  ];

  it("forks from a user and an assistant message, records lineage, and the tree shows both", async () => {
    const src = rich.add("source", convo);
    const child = rich.add("Sub task", [], src.id);
    const fork = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/fork/route");
    const p = { backendId: "rich", sessionId: src.id };

    const r1 = await fork.POST(post({ messageId: "msg_3" }), ctx(p));
    expect(r1.status).toBe(201);
    const f1 = (await r1.json()) as Session;
    expect(f1.forkedFrom).toEqual({ sessionId: src.id, messageId: "msg_3" });
    expect(
      rich.sessions.get(f1.id)!.messages.map((m) => {
        const b = m.blocks[0];
        return b?.kind === "text" ? b.text : "";
      }),
    ).toEqual(["first", "one"]);

    const r2 = await fork.POST(post({ messageId: "msg_4" }), ctx(p));
    const f2 = (await r2.json()) as Session;
    expect(rich.sessions.get(f2.id)!.messages).toHaveLength(4);

    const unknown = await fork.POST(post({ messageId: "msg_nope" }), ctx(p));
    expect(unknown.status).toBe(404);

    // A fork of a fork.
    const r3 = await fork.POST(post({}), ctx({ backendId: "rich", sessionId: f2.id }));
    const f3 = (await r3.json()) as Session;
    expect(f3.forkedFrom).toEqual({ sessionId: f2.id });

    // Lineage shows on reads and lists.
    const one = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/route");
    const read = (await (await one.GET(get(), ctx({ backendId: "rich", sessionId: f1.id }))).json()) as Session;
    expect(read.forkedFrom?.sessionId).toBe(src.id);
    const list = await import("@/app/api/backends/[backendId]/sessions/route");
    const items = (
      (await (await list.GET(get("http://x/api?limit=50"), ctx({ backendId: "rich" }))).json()) as { items: Session[] }
    ).items;
    expect(items.find((s) => s.id === f2.id)?.forkedFrom?.sessionId).toBe(src.id);
    // And on the snapshot.
    const snap = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/snapshot/route");
    const sn = (await (await snap.GET(get(), ctx({ backendId: "rich", sessionId: f3.id }))).json()) as {
      session: Session;
    };
    expect(sn.session.forkedFrom?.sessionId).toBe(f2.id);

    // The tree, asked from the deepest fork, starts at the source and holds everything.
    const tree = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/tree/route");
    const t = (await (await tree.GET(get(), ctx({ backendId: "rich", sessionId: f3.id }))).json()) as SessionTree;
    expect(t.currentId).toBe(f3.id);
    expect(t.root.session.id).toBe(src.id);
    expect(t.root.relation).toBe("root");
    const kids = t.root.children.map((c) => [c.session.id, c.relation]);
    expect(kids).toEqual([
      [child.id, "subagent"],
      [f1.id, "fork"],
      [f2.id, "fork"],
    ]);
    expect(t.root.children[2]!.children.map((c) => c.session.id)).toEqual([f3.id]);
  });

  it("a deleted fork disappears from the tree and its lineage is forgotten", async () => {
    const src = rich.add("source 2", convo);
    const fork = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/fork/route");
    const f = (await (await fork.POST(post({}), ctx({ backendId: "rich", sessionId: src.id }))).json()) as Session;
    rich.sessions.delete(f.id);
    const tree = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/tree/route");
    const t = (await (await tree.GET(get(), ctx({ backendId: "rich", sessionId: src.id }))).json()) as SessionTree;
    expect(t.root.children).toEqual([]);
    expect(store.getFork("rich", f.id)).toBeUndefined();
    const missing = await tree.GET(get(), ctx({ backendId: "rich", sessionId: "ses_gone" }));
    expect(missing.status).toBe(404);
  });
});

describe("export", () => {
  it("downloads a Markdown transcript and a JSON export", async () => {
    const s = rich.add("Export me: a/b", [
      ["msg_1", "user", "What is 2+2?"],
      ["msg_2", "assistant", "It is **4**.\n\n```\ncode ``` inside\n```"],
    ]);
    const exp = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/export/route");
    const md = await exp.GET(get("http://x/api?format=md"), ctx({ backendId: "rich", sessionId: s.id }));
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toContain("text/markdown");
    expect(md.headers.get("content-disposition")).toBe('attachment; filename="Export-me-ab.md"');
    const text = await md.text();
    expect(text).toContain("# Export me: a/b");
    expect(text).toContain("## User");
    expect(text).toContain("What is 2+2?");
    expect(text).toContain("It is **4**.");
    expect(text).toContain("[~] Ship it");

    const js = await exp.GET(get("http://x/api?format=json"), ctx({ backendId: "rich", sessionId: s.id }));
    expect(js.headers.get("content-disposition")).toContain(".json");
    const data = (await js.json()) as { session: Session; messages: Message[]; todos: unknown[] };
    expect(data.session.id).toBe(s.id);
    expect(data.messages).toHaveLength(2);
    expect(data.todos).toHaveLength(1);

    const bad = await exp.GET(get("http://x/api?format=pdf"), ctx({ backendId: "rich", sessionId: s.id }));
    expect(bad.status).toBe(400);
  });
});
