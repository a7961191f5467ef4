import { testConsoleApp } from "@/testkit/console-app";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchPage, SearchStatus } from "@/lib/api";
import type { Backend, Message, Session } from "@/lib/model";
import type { ConsoleApp } from "../app";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import { ApiError } from "../errors";
import { Hub } from "../hub/hub";
import { Lineage } from "../lineage";
import { SqliteStore } from "../store/sqlite-store";
import { SearchIndexer } from "./indexer";

const g = globalThis as typeof globalThis & { __switchboard?: ConsoleApp };

class StubBackend implements BackendAdapter {
  readonly id = "stub";
  readonly passiveHistory = true;
  sessions = new Map<string, { session: Session; messages: Message[] }>();
  info(): Backend {
    return {
      id: this.id,
      kind: "opencode",
      label: "Stub",
      status: "ready",
      capabilities: {
        fork: false,
        revert: false,
        diff: false,
        compact: false,
        models: false,
        share: false,
        history: true,
        abort: false,
        rename: false,
        delete: true,
        search: true,
        directories: false,
        interrupts: { permission: false, question: false, input: false },
      },
    };
  }
  async start() {}
  async stop() {}
  add(id: string, title: string, texts: string[]) {
    const session: Session = { id, backendId: this.id, title, createdAt: 1, updatedAt: 1, status: "idle" };
    const messages = texts.map(
      (text, i): Message => ({
        id: `${id}-m${i}`,
        sessionId: id,
        role: i % 2 ? "assistant" : "user",
        createdAt: i + 1,
        blocks: [
          { id: `${id}-m${i}-t`, kind: "text", text },
          ...(i % 2
            ? [
                {
                  id: `${id}-m${i}-tool`,
                  kind: "tool" as const,
                  callId: "c",
                  tool: "bash" as const,
                  rawTool: "bash",
                  status: "completed" as const,
                  input: { command: "printf out" },
                  output: `tooloutput${id}`,
                },
              ]
            : []),
        ],
      }),
    );
    this.sessions.set(id, { session, messages });
  }
  async listSessions() {
    return { items: [...this.sessions.values()].map((s) => s.session) };
  }
  async createSession(): Promise<Session> {
    throw new Error("unused");
  }
  async getSession(id: string) {
    const s = this.sessions.get(id);
    if (!s) throw ApiError.notFound(`Unknown session: ${id}`);
    return s.session;
  }
  async loadSession(id: string): Promise<LoadedSession> {
    const s = this.sessions.get(id);
    if (!s) throw ApiError.notFound(`Unknown session: ${id}`);
    return { session: s.session, messages: s.messages, interrupts: [], todos: [] };
  }
  async deleteSession(id: string) {
    this.sessions.delete(id);
  }
  async prompt() {}
}

let store: SqliteStore;
let hub: Hub;
let search: SearchIndexer;
const stub = new StubBackend();

beforeAll(async () => {
  store = new SqliteStore(":memory:");
  const lineage = new Lineage(store);
  hub = new Hub((id) => (id === stub.id ? stub : undefined));
  search = new SearchIndexer({ store, backends: () => [stub], pauseMs: 0, intervalMs: 3_600_000 });
  hub.observe(search);
  const backends = {
    require(id: string) {
      if (id !== stub.id) throw ApiError.notFound(`Unknown backend: ${id}`);
      return stub;
    },
  } as unknown as ConsoleApp["backends"];
  g.__switchboard = testConsoleApp({
    config: { dataDir: "/tmp", workspace: "/tmp", workspaceRoots: ["/tmp"], envBackends: [] },
    store,
    hub,
    backends,
    lineage,
    search,
  });
  stub.add("s1", "Alpha session", ["how do I frobnicate", "You frobnicate with care", "again please"]);
  for (let i = 2; i <= 6; i++) stub.add(`s${i}`, `Session ${i}`, [`common word number ${i}`]);
  await search.pass();
});

afterAll(() => {
  search.stop();
  hub.stop();
  store.close();
  delete g.__switchboard;
});

const ctx = { params: Promise.resolve({}) };
async function find(query: string): Promise<Response> {
  const { GET } = await import("@/app/api/search/route");
  return GET(new Request(`http://x/api/search?${query}`), ctx);
}

describe("GET /api/search", () => {
  it("finds a prompt's and a reply's words, with the session's title and the words' ranges", async () => {
    const r = await find("q=frobnicate");
    expect(r.status).toBe(200);
    const page = (await r.json()) as SearchPage;
    expect(page.items.map((h) => [h.messageId, h.role, h.sessionTitle])).toEqual(
      expect.arrayContaining([
        ["s1-m0", "user", "Alpha session"],
        ["s1-m1", "assistant", "Alpha session"],
      ]),
    );
    for (const h of page.items)
      expect(h.matches.map(([a, b]) => h.snippet.slice(a, b).toLowerCase())).toContain("frobnicate");
  });

  it("answers every hostile query with 200", async () => {
    const hostile = [
      '"',
      '"frob',
      "NEAR(",
      "a NEAR b",
      "-frob",
      "*",
      "frob*",
      "((((",
      ")",
      "\u0000",
      "col:frob",
      "^",
      "OR",
      "AND NOT",
    ];
    for (const q of [...hostile, "x".repeat(10_000)]) {
      const r = await find(`q=${encodeURIComponent(q)}`);
      expect(r.status, q).toBe(200);
      expect(Array.isArray(((await r.json()) as SearchPage).items)).toBe(true);
    }
  });

  it("validates its parameters with the error shape", async () => {
    for (const query of [
      "",
      "q=a&limit=0",
      "q=a&limit=abc",
      "q=a&cursor=-1",
      "q=a&extra=1",
      `q=${"x".repeat(10_001)}`,
    ]) {
      const r = await find(query);
      expect(r.status, query).toBe(400);
      const body = (await r.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("bad_request");
    }
  });

  it("pages with the cursor it returns", async () => {
    const first = (await (await find("q=common&limit=2")).json()) as SearchPage;
    expect(first.items).toHaveLength(2);
    const seen = first.items.map((h) => h.sessionId);
    let cursor = first.nextCursor;
    while (cursor) {
      const next = (await (await find(`q=common&limit=2&cursor=${cursor}`)).json()) as SearchPage;
      seen.push(...next.items.map((h) => h.sessionId));
      cursor = next.nextCursor;
    }
    expect(seen.sort()).toEqual(["s2", "s3", "s4", "s5", "s6"]);
  });

  it("drops a session's entries when the console deletes it", async () => {
    expect(((await (await find("q=number 4")).json()) as SearchPage).items).toHaveLength(1);
    const del = await import("@/app/api/backends/[backendId]/sessions/[sessionId]/route");
    const r = await del.DELETE(new Request("http://x/api", { method: "DELETE" }), {
      params: Promise.resolve({ backendId: "stub", sessionId: "s4" }),
    });
    expect(r.status).toBe(200);
    expect(((await (await find("q=number 4")).json()) as SearchPage).items).toEqual([]);
  });

  it("leaves tool outputs out when the setting says so, and reports the index", async () => {
    expect(((await (await find("q=tooloutputs1")).json()) as SearchPage).items).toHaveLength(1);
    const { PUT } = await import("@/app/api/search/settings/route");
    const bad = await PUT(
      new Request("http://x/api", { method: "PUT", body: JSON.stringify({ toolOutputs: "no" }) }),
      ctx,
    );
    expect(bad.status).toBe(400);
    const ok = await PUT(
      new Request("http://x/api", { method: "PUT", body: JSON.stringify({ toolOutputs: false }) }),
      ctx,
    );
    expect(((await ok.json()) as SearchStatus).toolOutputs).toBe(false);
    await search.pass();
    expect(((await (await find("q=tooloutputs1")).json()) as SearchPage).items).toEqual([]);
    const { GET } = await import("@/app/api/search/status/route");
    const status = (await (await GET(new Request("http://x/api/search/status"), ctx)).json()) as SearchStatus;
    expect(status.backends).toEqual([expect.objectContaining({ backendId: "stub", state: "idle", sessions: 5 })]);
  });
});
