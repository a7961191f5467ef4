import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Session } from "@/lib/model";
import { type PostgresServer, startPostgres } from "../../testkit/postgres-server";
import { ftsQuery } from "../search/query";
import { copyStore } from "./copy-store";
import { PostgresStore } from "./postgres-store";
import { SqliteStore } from "./sqlite-store";

let server: PostgresServer;
let pgStore: PostgresStore;
beforeAll(async () => {
  server = await startPostgres();
  pgStore = await PostgresStore.open(server.url);
});
afterAll(async () => {
  await pgStore?.close();
  await server?.stop();
});

const session = (id: string): Session => ({
  id,
  backendId: "b1",
  title: `T ${id}`,
  createdAt: 1,
  updatedAt: 2,
  status: "idle",
});

it("copies every table of a SQLite store into PostgreSQL, twice with the same result", async () => {
  const sqlite = new SqliteStore(path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sb-copy-")), "db.sqlite"));
  sqlite.putBackend({
    id: "oc",
    def: { kind: "opencode", label: "OC", config: { baseUrl: "http://127.0.0.1:1" } },
    createdAt: 3,
  });
  sqlite.setMeta("console-token-hash", "abc");
  sqlite.insertShare(
    {
      id: "sh1",
      tokenHash: "h1",
      backendId: "b1",
      sessionId: "s1",
      sessionTitle: "T s1",
      live: false,
      includeToolOutput: false,
      createdAt: 4,
      expiresAt: 100,
      accessCount: 2,
      lastAccessAt: 5,
    },
    '{"snapshot":1}',
  );
  sqlite.insertRedactionPattern({ id: "p1", label: "Key", pattern: "sk-[a-z]+", regex: true, createdAt: 6 });
  sqlite.putFork({ backendId: "b1", sessionId: "s2", sourceSessionId: "s1", sourceMessageId: "m1", createdAt: 7 });
  for (let i = 0; i < 3; i++)
    sqlite.putTranscript({
      backendId: "b1",
      sessionId: `s${i}`,
      session: session(`s${i}`),
      messages: [
        {
          id: `m${i}`,
          sessionId: `s${i}`,
          role: "user",
          createdAt: i,
          blocks: [{ id: `m${i}-t`, kind: "text", text: "hi" }],
        },
      ],
      updatedAt: 10 + i,
    });
  sqlite.putSearchSession("b1", "s1", "T s1", 9);
  sqlite.putSearchDocuments(
    Array.from({ length: 1200 }, (_, i) => ({
      backendId: "b1",
      sessionId: "s1",
      messageId: `d${i}`,
      role: "assistant" as const,
      createdAt: i,
      text: i === 7 ? "the rare needle" : `filler text ${i}`,
    })),
  );

  const counts = await copyStore(sqlite, pgStore);
  expect(counts).toEqual({
    backend: 1,
    meta: 1,
    share: 1,
    redaction: 1,
    fork: 1,
    transcript: 3,
    searchSession: 1,
    searchDocument: 1200,
  });
  await copyStore(sqlite, pgStore);

  expect(await pgStore.listBackends()).toEqual(sqlite.listBackends());
  expect(await pgStore.getMeta("console-token-hash")).toBe("abc");
  expect(await pgStore.listShares()).toEqual(sqlite.listShares());
  expect(await pgStore.frozenSnapshot("sh1")).toBe('{"snapshot":1}');
  expect(await pgStore.listRedactionPatterns()).toEqual(sqlite.listRedactionPatterns());
  expect(await pgStore.listForks("b1", "s1")).toEqual(sqlite.listForks("b1", "s1"));
  expect(await pgStore.listTranscripts("b1")).toEqual(sqlite.listTranscripts("b1"));
  for (let i = 0; i < 3; i++)
    expect(await pgStore.getTranscript("b1", `s${i}`)).toEqual(sqlite.getTranscript("b1", `s${i}`));
  expect(await pgStore.searchCounts()).toEqual(sqlite.searchCounts());
  const q = { limit: 5, offset: 0 };
  expect((await pgStore.search(ftsQuery("needle")!, q)).map((h) => h.messageId)).toEqual(
    sqlite.search(ftsQuery("needle")!, q).map((h) => h.messageId),
  );
  sqlite.close();
});
