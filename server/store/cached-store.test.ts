import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { until } from "@/testkit/until";
import { type PostgresServer, startPostgres } from "../../testkit/postgres-server";
import { CachedStore } from "./cached-store";
import { PostgresStore } from "./postgres-store";
import type { StoredShare } from "./store";

/** Two consoles on one real PostgreSQL (testkit/postgres-server.ts), each with its CachedStore. */
let server: PostgresServer;
const stores: CachedStore[] = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await server?.stop();
});

async function replica(): Promise<CachedStore> {
  const s = await CachedStore.open(await PostgresStore.open(server.url));
  stores.push(s);
  return s;
}

const share: StoredShare = {
  id: "sh1",
  tokenHash: "h1",
  backendId: "b",
  sessionId: "s",
  sessionTitle: "S",
  live: true,
  includeToolOutput: false,
  createdAt: 1,
  expiresAt: null,
  accessCount: 0,
};

it("a write on A is read back on A at once, and reaches B's copy within a second (NOTIFY)", async () => {
  const a = await replica();
  const b = await replica();
  a.insertShare(share);
  // A reads its own write before the database has it.
  expect(a.shareByTokenHash("h1")?.id).toBe("sh1");
  await until(() => b.shareByTokenHash("h1"), "B sees the new share");
  expect(b.shareByTokenHash("h1")?.revokedAt).toBeUndefined();

  expect(a.revokeShare("sh1", 42)).toBe(true);
  expect(a.revokeShare("sh1", 43)).toBe(false);
  // The bound the console promises ("within a second") as the wait's deadline, not a timing assertion.
  await until(() => b.shareByTokenHash("h1")?.revokedAt === 42, "B sees the revocation within a second", 1000);

  a.insertRedactionPattern({ id: "p", label: "L", pattern: "sk-", regex: false, createdAt: 1 });
  await until(() => b.listRedactionPatterns().length === 1, "B sees the pattern");
  a.setMeta("acp-credentials:x", "{}");
  await until(() => b.getMeta("acp-credentials:x") === "{}", "B sees the setting");
  a.putBackend({ id: "x", def: { kind: "opencode", label: "X", config: {} }, createdAt: 1 });
  await until(() => b.listBackends().some((x) => x.id === "x"), "B sees the backend");
  a.putFork({ backendId: "x", sessionId: "f1", sourceSessionId: "s1", createdAt: 3 });
  await until(() => b.getFork("x", "f1")?.sourceSessionId === "s1", "B sees the fork");
  expect(b.listForks("x", "s1").map((f) => f.sessionId)).toEqual(["f1"]);

  // A console that opens later starts from the tables as they are.
  const c = await replica();
  expect(c.getShare("sh1")?.revokedAt).toBe(42);
  expect(c.getMeta("acp-credentials:x")).toBe("{}");
  expect(a.deleteMeta("acp-credentials:x")).toBe(true);
  await until(() => b.getMeta("acp-credentials:x") === undefined, "B sees the setting removed");
  await until(() => c.getMeta("acp-credentials:x") === undefined, "C sees the setting removed");
});

it("writes reach the database in order; the database's own reads wait for them", async () => {
  const a = await replica();
  const t = {
    backendId: "zot",
    sessionId: "s1",
    session: { id: "s1", backendId: "zot", title: "T", createdAt: 1, updatedAt: 2, status: "idle" as const },
    messages: [],
    updatedAt: 2,
  };
  for (let i = 0; i < 20; i++) a.putTranscript({ ...t, session: { ...t.session, title: `T${i}` }, updatedAt: i });
  a.putSearchSession("zot", "s1", "T19", 19);
  // The search index is the database's: the read comes after the writes queued before it.
  expect(await a.searchSessionUpdatedAt("zot", "s1")).toBe(19);
  await a.flushed();
  const again = await replica();
  expect(again.getTranscript("zot", "s1")?.session.title).toBe("T19");
  // A copy: folding into what was read does not change what is kept.
  const read = again.getTranscript("zot", "s1");
  read?.messages?.push({ id: "m", sessionId: "s1", role: "user", createdAt: 1, blocks: [] });
  expect(again.getTranscript("zot", "s1")?.messages).toEqual([]);
});

it("in replica mode a console holds only the transcripts of the backends it runs", async () => {
  const writer = await replica();
  const t = {
    backendId: "owned",
    sessionId: "s1",
    session: { id: "s1", backendId: "owned", title: "Kept", createdAt: 1, updatedAt: 2, status: "idle" as const },
    messages: [],
    updatedAt: 2,
  };
  writer.putTranscript(t);
  await writer.flushed();
  const standby = await CachedStore.open(await PostgresStore.open(server.url), { transcripts: "owned" });
  stores.push(standby);
  expect(standby.getTranscript("owned", "s1")).toBeUndefined();
  await standby.reloadTranscripts("owned"); // it takes the backend over
  expect(standby.getTranscript("owned", "s1")?.session.title).toBe("Kept");
  standby.dropTranscripts("owned"); // another replica runs it now; the database keeps it
  expect(standby.listTranscripts("owned")).toEqual([]);
  await standby.reloadTranscripts("owned");
  expect(standby.listTranscripts("owned").map((x) => x.sessionId)).toEqual(["s1"]);
});

it("a write the database refuses is logged and the copy is read again, so it does not keep it", async () => {
  const a = await replica();
  // The database refuses what the copy takes: a rule only PostgreSQL's table has.
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query("ALTER TABLE shares ADD CONSTRAINT refuse_one CHECK (id <> 'sh-refused')");
  await client.end();
  a.insertShare({ ...share, id: "sh-refused", tokenHash: "h-refused" });
  expect(a.getShare("sh-refused")).toBeDefined();
  await a.flushed();
  await until(() => a.getShare("sh-refused") === undefined, "the refused share leaves the copy");
  expect(a.shareByTokenHash("h-refused")).toBeUndefined();
});

it("a write the copy refuses throws at once, as SQLite's would, and never reaches the database", async () => {
  const a = await replica();
  a.insertShare({ ...share, id: "sh-dup", tokenHash: "h-dup" });
  expect(() => a.insertShare({ ...share, id: "sh-dup2", tokenHash: "h-dup" })).toThrow(/UNIQUE/);
  expect(a.getShare("sh-dup2")).toBeUndefined();
  expect(a.shareByTokenHash("h-dup")?.id).toBe("sh-dup");
  await a.flushed();
  expect(await a.frozenSnapshot("sh-dup2")).toBeUndefined();
});

it("a read of the table that began before a revocation reached the database does not undo it", async () => {
  const a = await replica();
  a.insertShare({ ...share, id: "sh-r", tokenHash: "h-r" });
  await a.flushed();
  for (let i = 0; i < 5; i++) {
    // A NOTIFY from another write arrives: the table is read again while the revocation is queued.
    const reading = a.reload("shares");
    if (i === 0) expect(a.revokeShare("sh-r", 5)).toBe(true);
    else a.touchShare("sh-r", 10 + i, 1);
    await reading;
    expect(a.shareByTokenHash("h-r")?.revokedAt).toBe(5);
  }
});
