import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message, Session } from "@/lib/model";
import { startPostgres, type PostgresServer } from "../../testkit/postgres-server";
import { ftsQuery } from "../search/query";
import { type AsyncStore, asAsync } from "./async-store";
import { CachedStore } from "./cached-store";
import { PostgresStore } from "./postgres-store";
import { SqliteStore } from "./sqlite-store";
import type { StoredShare } from "./store";

/**
 * One contract, two engines: every check runs on SQLite (the embedded default) and on a real
 * PostgreSQL server started for this file (testkit/postgres-server.ts).
 */

const session: Session = { id: "s1", backendId: "b1", title: "Hello", createdAt: 1, updatedAt: 2, status: "idle" };
const messages: Message[] = [
  { id: "m1", sessionId: "s1", role: "user", createdAt: 1, blocks: [{ id: "m1-b0", kind: "text", text: "hi" }] },
  {
    id: "m2",
    sessionId: "s1",
    role: "assistant",
    createdAt: 2,
    completedAt: 3,
    blocks: [{ id: "m2-b1", kind: "text", text: "hello" }],
  },
];
const share = (id: string, createdAt: number): StoredShare => ({
  id,
  tokenHash: `hash-${id}`,
  backendId: "b1",
  sessionId: "s1",
  sessionTitle: "Hello",
  upToMessageId: "m2",
  upToCreatedAt: 2,
  live: false,
  includeToolOutput: true,
  createdAt,
  expiresAt: null,
  accessCount: 0,
});

/** The `i`th shortest lowercase word: a … z, aa … zz, aaa … */
function shortWord(i: number): string {
  let n = i;
  let len = 1;
  let count = 26;
  while (n >= count) {
    n -= count;
    len++;
    count *= 26;
  }
  let w = "";
  for (let k = 0; k < len; k++) {
    w = String.fromCharCode(97 + (n % 26)) + w;
    n = Math.floor(n / 26);
  }
  return w;
}

function contract(name: string, open: () => Promise<AsyncStore>) {
  describe(`store contract: ${name}`, () => {
    let store: AsyncStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    it("keeps backends by id (an update keeps the creation time) and meta values", async () => {
      await store.putBackend({ id: "x", def: { kind: "opencode", label: "X", config: {} }, createdAt: 5 });
      await store.putBackend({ id: "y", def: { kind: "opencode", label: "Y", config: {} }, createdAt: 6 });
      await store.putBackend({ id: "x", def: { kind: "opencode", label: "X2", config: {} }, createdAt: 99 });
      const list = await store.listBackends();
      expect(list.map((b) => [b.id, b.def.label, b.createdAt])).toEqual([
        ["x", "X2", 5],
        ["y", "Y", 6],
      ]);
      expect(await store.deleteBackend("y")).toBe(true);
      expect(await store.deleteBackend("y")).toBe(false);
      expect(await store.getMeta("k")).toBeUndefined();
      await store.setMeta("k", "1");
      await store.setMeta("k", "2");
      expect(await store.getMeta("k")).toBe("2");
      await store.setMeta("acp-credentials:b", "y");
      await store.setMeta("acp-credentials:a", "x");
      await store.setMeta("acp-credentialsX", "z");
      expect(await store.listMeta("acp-credentials:")).toEqual([
        ["acp-credentials:a", "x"],
        ["acp-credentials:b", "y"],
      ]);
      expect(await store.listMeta("nothing:")).toEqual([]);
      expect(await store.deleteMeta("acp-credentials:a")).toBe(true);
      expect(await store.deleteMeta("acp-credentials:a")).toBe(false);
      expect(await store.getMeta("acp-credentials:a")).toBeUndefined();
      expect(await store.listMeta("acp-credentials:")).toEqual([["acp-credentials:b", "y"]]);
    });

    it("shares: found by id and token hash, frozen snapshot until revoked, access counted", async () => {
      await store.insertShare(share("sh1", 10), '{"frozen":true}');
      await store.insertShare({ ...share("sh2", 20), tokenHash: "hash-2", live: true, expiresAt: 99 });
      expect(await store.getShare("sh1")).toEqual(share("sh1", 10));
      expect((await store.shareByTokenHash("hash-2"))?.id).toBe("sh2");
      expect(await store.shareByTokenHash("nope")).toBeUndefined();
      expect((await store.listShares()).map((s) => s.id)).toEqual(["sh2", "sh1"]);
      expect(await store.frozenSnapshot("sh1")).toBe('{"frozen":true}');
      await store.touchShare("sh1", 50, 2);
      await store.touchShare("sh1", 60, 1);
      expect(await store.getShare("sh1")).toMatchObject({ lastAccessAt: 60, accessCount: 3 });
      expect(await store.revokeShare("sh1", 70)).toBe(true);
      expect(await store.revokeShare("sh1", 80)).toBe(false);
      expect(await store.getShare("sh1")).toMatchObject({ revokedAt: 70 });
      expect(await store.frozenSnapshot("sh1")).toBeUndefined();
      await store.dropFrozenSnapshot("sh2");
      expect(await store.frozenSnapshot("sh2")).toBeUndefined();
    });

    it("shares keep who made them; a share from before people signed in has nobody", async () => {
      const olga = { id: "sub-olga", name: "Olga" };
      await store.insertShare({ ...share("sh-by", 30), tokenHash: "hash-by", createdBy: olga });
      expect((await store.getShare("sh-by"))?.createdBy).toEqual(olga);
      expect((await store.shareByTokenHash("hash-by"))?.createdBy).toEqual(olga);
      expect((await store.listShares()).find((s) => s.id === "sh-by")?.createdBy).toEqual(olga);
      expect(await store.getShare("sh1")).not.toHaveProperty("createdBy");
    });

    it("redaction patterns in creation order", async () => {
      await store.insertRedactionPattern({ id: "p2", label: "B", pattern: "b+", regex: true, createdAt: 2 });
      await store.insertRedactionPattern({ id: "p1", label: "A", pattern: "secret", regex: false, createdAt: 1 });
      expect(await store.listRedactionPatterns()).toEqual([
        { id: "p1", label: "A", pattern: "secret", regex: false, createdAt: 1 },
        { id: "p2", label: "B", pattern: "b+", regex: true, createdAt: 2 },
      ]);
      expect(await store.deleteRedactionPattern("p1")).toBe(true);
      expect(await store.deleteRedactionPattern("p1")).toBe(false);
    });

    it("forks: lineage both ways, and forgetting a fork forgets the forks made from it", async () => {
      await store.putFork({
        backendId: "b1",
        sessionId: "f1",
        sourceSessionId: "s1",
        sourceMessageId: "m1",
        createdAt: 1,
      });
      await store.putFork({ backendId: "b1", sessionId: "f2", sourceSessionId: "s1", createdAt: 2 });
      await store.putFork({ backendId: "b1", sessionId: "f3", sourceSessionId: "f1", createdAt: 3 });
      expect(await store.getFork("b1", "f1")).toEqual({
        backendId: "b1",
        sessionId: "f1",
        sourceSessionId: "s1",
        sourceMessageId: "m1",
        createdAt: 1,
      });
      expect((await store.listForks("b1", "s1")).map((f) => f.sessionId)).toEqual(["f1", "f2"]);
      await store.deleteFork("b1", "f1");
      expect(await store.getFork("b1", "f1")).toBeUndefined();
      expect(await store.getFork("b1", "f3")).toBeUndefined();
      expect(await store.getFork("b1", "f2")).toBeDefined();
    });

    it("transcripts: stored, listed newest first without messages, updated and deleted", async () => {
      await store.putTranscript({ backendId: "b1", sessionId: "s1", session, messages, updatedAt: 2 });
      await store.putTranscript({
        backendId: "b1",
        sessionId: "s2",
        session: { ...session, id: "s2" },
        agentSessionId: "agent-2",
        updatedAt: 5,
      });
      await store.putTranscript({
        backendId: "b2",
        sessionId: "s3",
        session: { ...session, id: "s3", backendId: "b2" },
        updatedAt: 9,
      });
      const list = await store.listTranscripts("b1");
      expect(list.map((t) => t.sessionId)).toEqual(["s2", "s1"]);
      expect(list[1]!.messages).toBeUndefined();
      expect(list[0]!.agentSessionId).toBe("agent-2");
      expect(await store.getTranscript("b1", "s1")).toMatchObject({ session, messages });
      await store.putTranscript({
        backendId: "b1",
        sessionId: "s1",
        session: { ...session, title: "Renamed" },
        messages: messages.slice(0, 1),
        updatedAt: 10,
      });
      expect(await store.getTranscript("b1", "s1")).toMatchObject({
        session: { title: "Renamed" },
        messages: [{ id: "m1" }],
      });
      await store.deleteTranscript("b1", "s1");
      expect(await store.getTranscript("b1", "s1")).toBeUndefined();
      await store.deleteTranscripts("b1");
      expect(await store.listTranscripts("b1")).toEqual([]);
      expect(await store.listTranscripts("b2")).toHaveLength(1);
    });

    it("search: every word must match, the last as a prefix; snippets mark the words; counts and deletes", async () => {
      await store.putSearchSession("b1", "s1", "Deploy notes", 7);
      await store.putSearchSession("b2", "s9", "Other", 8);
      await store.putSearchDocuments([
        {
          backendId: "b1",
          sessionId: "s1",
          messageId: "m1",
          role: "user",
          createdAt: 1,
          text: "deploy the widget today",
        },
        {
          backendId: "b1",
          sessionId: "s1",
          messageId: "m2",
          role: "assistant",
          createdAt: 2,
          text: "the widget is deployed",
        },
        { backendId: "b2", sessionId: "s9", messageId: "m3", role: "user", createdAt: 3, text: "widget factory" },
      ]);
      const hits = await store.search(ftsQuery("widget depl")!, { limit: 10, offset: 0 });
      expect(hits.map((h) => h.messageId).sort()).toEqual(["m1", "m2"]);
      const m1 = hits.find((h) => h.messageId === "m1")!;
      expect(m1).toMatchObject({ backendId: "b1", sessionId: "s1", sessionTitle: "Deploy notes", role: "user" });
      expect(m1.snippet).toContain("deploy the widget today");
      expect(m1.matches.map(([a, b]) => m1.snippet.slice(a, b)).sort()).toEqual(["deploy", "widget"]);
      expect(
        (await store.search(ftsQuery("WIDGET")!, { backendId: "b2", limit: 10, offset: 0 })).map((h) => h.messageId),
      ).toEqual(["m3"]);
      expect(await store.search(ftsQuery("widget")!, { limit: 1, offset: 5 })).toEqual([]);
      expect(await store.searchSessionUpdatedAt("b1", "s1")).toBe(7);
      expect(await store.searchSessionIds("b1")).toEqual(["s1"]);
      expect(await store.searchCounts()).toEqual([
        { backendId: "b1", sessions: 1, messages: 2 },
        { backendId: "b2", sessions: 1, messages: 1 },
      ]);
      // A message's text replaced, then emptied (removed).
      await store.putSearchDocuments([
        { backendId: "b1", sessionId: "s1", messageId: "m1", role: "user", createdAt: 1, text: "nothing here" },
        { backendId: "b1", sessionId: "s1", messageId: "m2", role: "assistant", createdAt: 2, text: "  " },
      ]);
      expect(await store.search(ftsQuery("widget")!, { backendId: "b1", limit: 10, offset: 0 })).toEqual([]);
      expect((await store.search(ftsQuery("nothing")!, { limit: 10, offset: 0 })).map((h) => h.messageId)).toEqual([
        "m1",
      ]);
      await store.deleteSearchSession("b1", "s1");
      expect(await store.searchSessionUpdatedAt("b1", "s1")).toBeUndefined();
      await store.deleteSearchSession("b2");
      expect(await store.searchCounts()).toEqual([]);
    });

    it("search: a session with a 2 MiB message stays searchable; the message's first 256 KiB are indexed", async () => {
      // The densest text for a tsvector: every word distinct and as short as can be (a … z, aa …),
      // so PostgreSQL's 1 MiB tsvector limit would fail the whole session's batch.
      const words: string[] = [];
      let bytes = 0;
      for (let i = 0; bytes < 2 * 1024 * 1024; i++) {
        const w = shortWord(i);
        words.push(w);
        bytes += w.length + 1;
      }
      const big = `bigstart ${words.join(" ")} bigend`;
      await store.putSearchSession("b1", "big", "Big", 1);
      await store.putSearchDocuments([
        { backendId: "b1", sessionId: "big", messageId: "small1", role: "user", createdAt: 1, text: "alpha first" },
        { backendId: "b1", sessionId: "big", messageId: "huge", role: "assistant", createdAt: 2, text: big },
        { backendId: "b1", sessionId: "big", messageId: "small2", role: "user", createdAt: 3, text: "omega last" },
      ]);
      const find = async (q: string) =>
        (await store.search(ftsQuery(q)!, { backendId: "b1", limit: 10, offset: 0 })).map((h) => h.messageId);
      expect(await find("alpha")).toEqual(["small1"]);
      expect(await find("omega")).toEqual(["small2"]);
      expect(await find("bigstart")).toEqual(["huge"]);
      // Past the indexed prefix (both engines alike).
      expect(await find("bigend")).toEqual([]);
      // A surrogate pair at the cut is never split: the prefix of emoji text is whole emoji.
      const emoji = "😀".repeat(200_000);
      await store.putSearchDocuments([
        {
          backendId: "b1",
          sessionId: "big",
          messageId: "emoji",
          role: "user",
          createdAt: 4,
          text: `emojistart ${emoji}`,
        },
      ]);
      expect(await find("emojistart")).toEqual(["emoji"]);
      await store.deleteSearchSession("b1", "big");
    });

    it("lists in one order on every engine, ties broken by id", async () => {
      const def = { kind: "opencode" as const, label: "T", config: {} };
      await store.putBackend({ id: "tie-b", def, createdAt: 1000 });
      await store.putBackend({ id: "tie-a", def, createdAt: 1000 });
      expect((await store.listBackends()).map((b) => b.id).filter((id) => id.startsWith("tie-"))).toEqual([
        "tie-a",
        "tie-b",
      ]);
      await store.insertShare({ ...share("tie-b", 1000), tokenHash: "tie-hash-b" });
      await store.insertShare({ ...share("tie-a", 1000), tokenHash: "tie-hash-a" });
      expect((await store.listShares()).map((s) => s.id).slice(0, 2)).toEqual(["tie-a", "tie-b"]);
      const pattern = { label: "T", pattern: "t", regex: false, createdAt: 1000 };
      await store.insertRedactionPattern({ ...pattern, id: "tie-b" });
      await store.insertRedactionPattern({ ...pattern, id: "tie-a" });
      expect((await store.listRedactionPatterns()).map((p) => p.id).slice(-2)).toEqual(["tie-a", "tie-b"]);
      await store.putFork({ backendId: "tie", sessionId: "f-b", sourceSessionId: "src", createdAt: 1 });
      await store.putFork({ backendId: "tie", sessionId: "f-a", sourceSessionId: "src", createdAt: 1 });
      expect((await store.listForks("tie", "src")).map((f) => f.sessionId)).toEqual(["f-a", "f-b"]);
      for (const id of ["t-b", "t-a", "t-c"])
        await store.putTranscript({
          backendId: "tie",
          sessionId: id,
          session: { ...session, id, backendId: "tie" },
          updatedAt: id === "t-c" ? 1 : 5,
        });
      expect((await store.listTranscripts("tie")).map((t) => t.sessionId)).toEqual(["t-a", "t-b", "t-c"]);
      for (const id of ["s-b", "s-c", "s-a"]) await store.putSearchSession("tie", id, "T", 1);
      expect(await store.searchSessionIds("tie")).toEqual(["s-a", "s-b", "s-c"]);
    });

    it("keeps an append-only audit log, newest first, filtered and paged", async () => {
      const ada = { id: "sub-ada", name: "Ada", via: "oidc" as const };
      const tok = { id: "token", name: "Console token", via: "token" as const };
      await store.appendAudit({ at: 10, actor: tok, action: "login" });
      await store.appendAudit({
        at: 11,
        actor: ada,
        action: "prompt",
        backendId: "b1",
        sessionId: "s1",
        detail: { text: "hi", parts: 1 },
      });
      await store.appendAudit({
        at: 12,
        actor: ada,
        action: "interrupt.answer",
        backendId: "b1",
        sessionId: "s2",
        detail: { decision: "allow_once" },
      });
      const all = await store.listAudit({ limit: 10 });
      expect(all.map((e) => e.action)).toEqual(["interrupt.answer", "prompt", "login"]);
      expect(all[1]).toEqual({
        id: expect.any(Number),
        at: 11,
        actor: ada,
        action: "prompt",
        backendId: "b1",
        sessionId: "s1",
        detail: { text: "hi", parts: 1 },
      });
      expect(all[2]).toEqual({ id: expect.any(Number), at: 10, actor: tok, action: "login" });
      expect((await store.listAudit({ limit: 10, actor: "sub-ada" })).map((e) => e.at)).toEqual([12, 11]);
      expect((await store.listAudit({ limit: 10, actor: "Console token" })).map((e) => e.at)).toEqual([10]);
      expect((await store.listAudit({ limit: 10, action: "prompt" })).map((e) => e.at)).toEqual([11]);
      expect((await store.listAudit({ limit: 10, sessionId: "s2" })).map((e) => e.at)).toEqual([12]);
      const first = await store.listAudit({ limit: 2 });
      expect(first.map((e) => e.at)).toEqual([12, 11]);
      const next = await store.listAudit({ limit: 2, before: first[1]?.id });
      expect(next.map((e) => e.at)).toEqual([10]);
    });
  });
}

contract("SQLite", async () =>
  asAsync(new SqliteStore(path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sb-sc-")), "db.sqlite"))),
);

describe("the audit log cannot be edited", () => {
  it("SQLite refuses an UPDATE or DELETE of an entry", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sb-audit-")), "db.sqlite");
    const store = new SqliteStore(file);
    store.appendAudit({ at: 1, actor: { id: "a", name: "A", via: "oidc" }, action: "login" });
    store.close();
    const db = new Database(file);
    expect(() => db.prepare("UPDATE audit_log SET actor_name = 'B'").run()).toThrow(/append-only/);
    expect(() => db.prepare("DELETE FROM audit_log").run()).toThrow(/append-only/);
    db.close();
  });

  it("PostgreSQL refuses an UPDATE, DELETE or TRUNCATE", async () => {
    const server = await startPostgres();
    try {
      const store = await PostgresStore.open(server.url);
      await store.appendAudit({ at: 1, actor: { id: "a", name: "A", via: "oidc" }, action: "login" });
      await store.close();
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      for (const sql of ["UPDATE audit_log SET actor_name = 'B'", "DELETE FROM audit_log", "TRUNCATE audit_log"])
        await expect(client.query(sql), sql).rejects.toThrow(/append-only/);
      expect((await client.query("SELECT count(*)::int AS n FROM audit_log")).rows[0]).toEqual({ n: 1 });
      await client.end();
    } finally {
      await server.stop();
    }
  });
});

let pgServer: PostgresServer | undefined;
let cachedServer: PostgresServer | undefined;
afterAll(async () => {
  await pgServer?.stop();
  await cachedServer?.stop();
});
contract("PostgreSQL", async () => {
  pgServer = await startPostgres();
  return PostgresStore.open(pgServer.url);
});

// The running console's view of PostgreSQL: the same contract through the copy in memory and its
// queue of writes (each read of the database waits for the writes before it).
contract("PostgreSQL through CachedStore", async () => {
  cachedServer = await startPostgres();
  return asAsync(await CachedStore.open(await PostgresStore.open(cachedServer.url)));
});
