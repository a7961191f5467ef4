import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { Message, Session } from "@/lib/model";
import { SqliteStore } from "./sqlite-store";

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

describe("SqliteStore transcripts (migration 2)", () => {
  it("migrates a version-1 database and keeps its backends", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-store-"));
    const file = path.join(dir, "db.sqlite");
    const v1 = new Database(file);
    v1.exec(`CREATE TABLE backends (id TEXT PRIMARY KEY, definition TEXT NOT NULL, created_at INTEGER NOT NULL);
             CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             PRAGMA user_version = 1;`);
    v1.prepare("INSERT INTO backends VALUES (?, ?, ?)").run(
      "x",
      JSON.stringify({ kind: "opencode", label: "X", config: {} }),
      1,
    );
    v1.close();
    const store = new SqliteStore(file);
    expect(store.listBackends().map((b) => b.id)).toEqual(["x"]);
    store.putTranscript({ backendId: "b1", sessionId: "s1", session, messages, updatedAt: 2 });
    store.close();
    const again = new SqliteStore(file);
    expect(again.getTranscript("b1", "s1")).toMatchObject({ session, messages });
    again.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("stores, lists (without messages), updates and deletes transcripts", () => {
    const store = new SqliteStore(":memory:");
    store.putTranscript({ backendId: "b1", sessionId: "s1", session, messages, updatedAt: 2 });
    store.putTranscript({
      backendId: "b1",
      sessionId: "s2",
      session: { ...session, id: "s2" },
      agentSessionId: "agent-2",
      updatedAt: 5,
    });
    store.putTranscript({
      backendId: "b2",
      sessionId: "s3",
      session: { ...session, id: "s3", backendId: "b2" },
      updatedAt: 9,
    });
    const list = store.listTranscripts("b1");
    expect(list.map((t) => t.sessionId)).toEqual(["s2", "s1"]);
    expect(list[1]!.messages).toBeUndefined();
    expect(list[0]!.agentSessionId).toBe("agent-2");
    store.putTranscript({
      backendId: "b1",
      sessionId: "s1",
      session: { ...session, title: "Renamed" },
      messages: messages.slice(0, 1),
      updatedAt: 10,
    });
    expect(store.getTranscript("b1", "s1")).toMatchObject({ session: { title: "Renamed" }, messages: [{ id: "m1" }] });
    store.deleteTranscript("b1", "s1");
    expect(store.getTranscript("b1", "s1")).toBeUndefined();
    store.deleteTranscripts("b1");
    expect(store.listTranscripts("b1")).toEqual([]);
    expect(store.listTranscripts("b2")).toHaveLength(1);
    store.close();
  });
});

describe("the schema the table modules make", () => {
  it("has the tables, columns and versions existing databases have (never renamed, only added to)", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sb-schema-")), "db.sqlite");
    new SqliteStore(file).close();
    const db = new Database(file);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[];
    const columns = Object.fromEntries(
      tables
        .filter((t) => !t.name.startsWith("search_fts_") && t.name !== "sqlite_sequence")
        .map((t) => [
          t.name,
          (db.prepare(`PRAGMA table_info("${t.name}")`).all() as { name: string }[]).map((c) => c.name).join(" "),
        ]),
    );
    expect(columns).toEqual({
      audit_log: "id at actor_id actor_name actor_via action backend_id session_id detail",
      backends: "id definition created_at",
      meta: "key value",
      redaction_patterns: "id label pattern is_regex created_at",
      search_fts: "text",
      search_rows: "id backend_id session_id message_id role created_at",
      search_sessions: "backend_id session_id title updated_at",
      session_forks: "backend_id session_id source_session_id source_message_id created_at",
      shares:
        "id token_hash backend_id session_id session_title up_to_message_id up_to_created_at live include_tool_output created_at expires_at revoked_at last_access_at access_count frozen_snapshot created_by_id created_by_name",
      transcripts: "backend_id session_id session messages todos agent_session_id updated_at",
    });
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    db.close();
  });
});
