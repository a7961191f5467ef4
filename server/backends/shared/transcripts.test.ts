import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Message, Session } from "@/lib/model";
import { SqliteStore } from "../../store/sqlite-store";
import { KEPT_MESSAGES, TranscriptStore } from "./transcripts";

const stores: SqliteStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
function open() {
  const store = new SqliteStore(path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sb-tr-")), "db.sqlite"));
  stores.push(store);
  return store;
}
const session = (id: string, updatedAt: number): Session => ({
  id,
  backendId: "b",
  title: id,
  createdAt: 1,
  updatedAt,
  status: "busy",
});
const message = (i: number): Message => ({
  id: `m${i}`,
  sessionId: "s1",
  role: "user",
  createdAt: i,
  blocks: [{ id: `m${i}-b`, kind: "text", text: `hi ${i}` }],
});

describe("TranscriptStore", () => {
  it("keeps sessions idle with the newest messages, per backend, newest first", () => {
    const store = open();
    const t = new TranscriptStore(store, "b");
    const other = new TranscriptStore(store, "other");
    const messages = Array.from({ length: KEPT_MESSAGES + 5 }, (_, i) => message(i));
    t.save({ session: session("s1", 5), messages, todos: [], agentSessionId: "agent-1" });
    t.save({ session: session("s2", 9) });
    other.save({ session: session("s3", 1) });
    const got = t.get("s1")!;
    expect(got.session.status).toBe("idle");
    expect(got.messages).toHaveLength(KEPT_MESSAGES);
    expect(got.messages![0]!.id).toBe("m5");
    expect(got.agentSessionId).toBe("agent-1");
    // Metadata only: an agent that replays its own history.
    expect(t.get("s2")!.messages).toBeUndefined();
    expect(t.list().map((x) => x.sessionId)).toEqual(["s2", "s1"]);
    t.delete("s2");
    expect(t.get("s2")).toBeUndefined();
    t.deleteAll();
    expect(t.list()).toEqual([]);
    expect(other.list()).toHaveLength(1);
  });

  it("does not record an agent id equal to the session id", () => {
    const t = new TranscriptStore(open(), "b");
    t.save({ session: session("s1", 1), agentSessionId: "s1" });
    expect(t.get("s1")!.agentSessionId).toBeUndefined();
  });

  it("logs, never throws, when the store fails", () => {
    const store = open();
    const t = new TranscriptStore(store, "b");
    store.close();
    stores.splice(0);
    expect(() => t.save({ session: session("s1", 1) })).not.toThrow();
  });
});
