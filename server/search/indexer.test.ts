import { afterEach, describe, expect, it } from "vitest";
import type { Message, Session } from "@/lib/model";
import { stateFromSnapshot } from "@/lib/timeline/reducer";
import type { BackendAdapter, LoadedSession } from "../backends/types";
import { SqliteStore } from "../store/sqlite-store";
import { SearchIndexer } from "./indexer";
import { until } from "@/testkit/until";
import { ftsQuery } from "./query";

const session = (id: string, title: string, updatedAt: number): Session => ({
  id,
  backendId: "b1",
  title,
  createdAt: 1,
  updatedAt,
  status: "idle",
});

const msg = (
  id: string,
  role: Message["role"],
  text: string,
  createdAt: number,
  extra: Message["blocks"] = [],
): Message => ({
  id,
  sessionId: "s",
  role,
  createdAt,
  blocks: [{ id: `${id}-t`, kind: "text", text }, ...extra],
});

/** A backend with a session list and paged histories, counting the histories it was asked for. */
function fakeBackend(data: Map<string, { session: Session; pages: Message[][] }>) {
  const loads: string[] = [];
  const adapter = {
    id: "b1",
    passiveHistory: true,
    info: () => ({ status: "ready" }),
    async listSessions(q: { limit: number; cursor?: string }) {
      const all = [...data.values()].map((d) => d.session);
      const from = q.cursor ? Number(q.cursor) : 0;
      const items = all.slice(from, from + q.limit);
      return { items, ...(from + q.limit < all.length ? { nextCursor: String(from + q.limit) } : {}) };
    },
    async loadSession(id: string): Promise<LoadedSession> {
      loads.push(id);
      const d = data.get(id)!;
      return {
        session: d.session,
        messages: d.pages[0]!,
        interrupts: [],
        todos: [],
        ...(d.pages.length > 1 ? { olderCursor: "1" } : {}),
      };
    },
    async loadMessages(id: string, q: { before?: string }) {
      const d = data.get(id)!;
      const i = Number(q.before);
      return { items: d.pages[i]!, ...(i + 1 < d.pages.length ? { nextCursor: String(i + 1) } : {}) };
    },
  } as unknown as BackendAdapter;
  return { adapter, loads };
}

describe("SearchIndexer", () => {
  let store: SqliteStore;
  let indexer: SearchIndexer;
  afterEach(() => {
    indexer?.stop();
    store?.close();
  });

  const find = (q: string) => store.search(ftsQuery(q)!, { limit: 20, offset: 0 });

  it("backfills sessions never opened, older pages included, and finds prompts, replies and tool output", async () => {
    store = new SqliteStore(":memory:");
    const bash: Message["blocks"][number] = {
      id: "tool1",
      kind: "tool",
      callId: "c1",
      tool: "bash",
      rawTool: "bash",
      status: "completed",
      input: { command: "ls -la" },
      output: "zebrafile.txt",
    };
    const data = new Map([
      [
        "s1",
        {
          session: session("s1", "Deploy work", 10),
          pages: [
            [msg("m3", "user", "now the kangaroo step", 3), msg("m4", "assistant", "Done with it.", 4, [bash])],
            [
              msg("m1", "user", "please deploy the widget", 1),
              msg("m2", "assistant", "Widgets deployed gracefully", 2),
            ],
          ],
        },
      ],
      ["s2", { session: session("s2", "Other", 5), pages: [[msg("m5", "user", "nothing here", 5)]] }],
    ]);
    const { adapter, loads } = fakeBackend(data);
    indexer = new SearchIndexer({ store, backends: () => [adapter], pauseMs: 0, intervalMs: 60_000 });
    await indexer.pass();

    const older = find("deploy");
    expect(older.map((h) => h.messageId).sort()).toEqual(["m1", "m2"]);
    const reply = find("gracefully")[0]!;
    expect(reply).toMatchObject({ backendId: "b1", sessionId: "s1", sessionTitle: "Deploy work", role: "assistant" });
    expect(reply.snippet).toBe("Widgets deployed gracefully");
    expect(reply.matches.map(([a, b]) => reply.snippet.slice(a, b))).toEqual(["gracefully"]);
    expect(find("kangaroo")[0]?.messageId).toBe("m3");
    expect(find("zebrafile")[0]?.messageId).toBe("m4");
    expect(find("kang")[0]?.messageId).toBe("m3"); // the last word is a prefix
    expect(loads).toEqual(["s1", "s2"]);
    expect(await indexer.status()).toMatchObject([
      { backendId: "b1", state: "idle", sessions: 2, messages: 5, seen: 2 },
    ]);

    // Unchanged sessions are not read again; a changed one is; one no longer listed is dropped.
    data.get("s2")!.session = session("s2", "Other", 6);
    data.get("s2")!.pages = [[msg("m5", "user", "now an ocelot", 5)]];
    data.delete("s1");
    await indexer.pass();
    expect(loads).toEqual(["s1", "s2", "s2"]);
    expect(find("ocelot")[0]?.sessionId).toBe("s2");
    expect(find("nothing")).toEqual([]);
    expect(find("deploy")).toEqual([]);
  });

  it("leaves tool outputs out when set to, and indexes everything again", async () => {
    store = new SqliteStore(":memory:");
    const tool: Message["blocks"][number] = {
      id: "t",
      kind: "tool",
      callId: "c",
      tool: "bash",
      rawTool: "bash",
      status: "completed",
      input: { command: "cat notes" },
      output: "secretive pelican",
    };
    const data = new Map([
      ["s1", { session: session("s1", "T", 1), pages: [[msg("m1", "assistant", "ran", 1, [tool])]] }],
    ]);
    const { adapter } = fakeBackend(data);
    indexer = new SearchIndexer({ store, backends: () => [adapter], pauseMs: 0, intervalMs: 60_000 });
    await indexer.pass();
    expect(find("pelican")).toHaveLength(1);
    indexer.setToolOutputs(false);
    await indexer.pass();
    expect(find("pelican")).toEqual([]);
    expect(find("notes")).toHaveLength(1); // the call's subject stays
  });

  it("indexes an open session live from the hub's state, and forgets a removed session", async () => {
    store = new SqliteStore(":memory:");
    indexer = new SearchIndexer({ store, backends: () => [], pauseMs: 0, intervalMs: 60_000 });
    const state = stateFromSnapshot({
      session: session("s9", "Live one", 7),
      messages: [msg("m1", "user", "a platypus appears", 1)],
      interrupts: [],
      todos: [],
    });
    indexer.event(
      "b1",
      "s9",
      { type: "message.updated", message: { ...msg("m1", "user", "", 1), blocks: undefined } as never },
      () => state,
    );
    await indexer.flush();
    expect(find("platypus")[0]).toMatchObject({ sessionId: "s9", sessionTitle: "Live one" });
    // Not read whole yet: the next pass reads it (its older pages) even though updatedAt matches.
    expect(store.searchSessionUpdatedAt("b1", "s9")).toBe(-1);
    // Only what the events touched is indexed again; a removed message leaves the index.
    const next = stateFromSnapshot({
      session: session("s9", "Live one", 8),
      messages: [msg("m2", "assistant", "an echidna too", 2)],
      interrupts: [],
      todos: [],
    });
    indexer.event(
      "b1",
      "s9",
      { type: "block.delta", messageId: "m2", blockId: "m2-t", field: "text", delta: "x" },
      () => next,
    );
    indexer.event("b1", "s9", { type: "message.removed", messageId: "m1" }, () => next);
    indexer.event("b1", "s9", { type: "session.status", status: "busy" }, () => next);
    await indexer.flush();
    expect(find("echidna")[0]).toMatchObject({ messageId: "m2" });
    expect(find("platypus")).toEqual([]);
    indexer.sessionRemoved("b1", "s9");
    expect(find("echidna")).toEqual([]);
  });
});

describe("SearchIndexer passes", () => {
  it("keeps passing on its interval, also after a pass found no backend ready", async () => {
    const store = new SqliteStore(":memory:");
    let status = "connecting";
    const data = new Map([["s1", { session: session("s1", "Later", 3), pages: [[msg("m1", "user", "an okapi", 1)]] }]]);
    const { adapter } = fakeBackend(data);
    const late = { ...adapter, id: "b1", info: () => ({ status }) } as unknown as BackendAdapter;
    for (const k of ["listSessions", "loadSession", "loadMessages"] as const)
      (late as unknown as Record<string, unknown>)[k] = (adapter[k] as (...a: unknown[]) => unknown).bind(adapter);
    const indexer = new SearchIndexer({ store, backends: () => [late], pauseMs: 0, intervalMs: 20 });
    try {
      indexer.start();
      await new Promise((r) => setTimeout(r, 60));
      expect(store.search(ftsQuery("okapi")!, { limit: 5, offset: 0 })).toEqual([]);
      status = "ready";
      await until(() => store.search(ftsQuery("okapi")!, { limit: 5, offset: 0 }).length === 1, "a later pass");
    } finally {
      indexer.stop();
      store.close();
    }
  });
});

describe("SearchIndexer on a backend whose history lives in the agent", () => {
  it("reads only the transcripts the console keeps, never asking the agent to load a session", async () => {
    const store = new SqliteStore(":memory:");
    const asked: string[] = [];
    const agent = {
      id: "acp1",
      info: () => ({ status: "ready" }),
      async listSessions() {
        asked.push("list");
        return { items: [session("t1", "Kept", 4)] };
      },
      async loadSession(id: string) {
        asked.push(`load ${id}`);
        throw new Error("an agent must not be asked to load a session by the backfill");
      },
    } as unknown as BackendAdapter;
    store.putTranscript({
      backendId: "acp1",
      sessionId: "t1",
      session: session("t1", "Kept", 4),
      messages: [msg("m1", "user", "the capybara question", 1)],
      updatedAt: 4,
    });
    const indexer = new SearchIndexer({ store, backends: () => [agent], pauseMs: 0, intervalMs: 60_000 });
    try {
      await indexer.pass();
      expect(store.search(ftsQuery("capybara")!, { limit: 5, offset: 0 })[0]).toMatchObject({
        backendId: "acp1",
        sessionTitle: "Kept",
      });
      expect(asked).toEqual([]);
      expect((await indexer.status())[0]).toMatchObject({ state: "idle", sessions: 1, seen: 1, indexed: 1 });
    } finally {
      indexer.stop();
      store.close();
    }
  });
});
