import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Backend, Message, Session, TimelineEvent } from "@/lib/model";
import { SqliteStore } from "../../store/sqlite-store";
import type { EventSink, LoadedSession } from "../types";
import { SessionRecords } from "./session-records";
import { TranscriptStore } from "./transcripts";

const stores: SqliteStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** A sink that keeps what reaches the hub, and has no state to read back. */
class ListSink implements EventSink {
  published: { sessionId: string; event: TimelineEvent }[] = [];
  publish(_backendId: string, sessionId: string, event: TimelineEvent) {
    this.published.push({ sessionId, event });
  }
  backendChanged(_b: Backend) {}
  openSessions() {
    return [];
  }
  reconcile(_b: string, _s: string, _fresh: LoadedSession) {}
}

function setup() {
  const store = new SqliteStore(path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sb-rec-")), "db.sqlite"));
  stores.push(store);
  const transcripts = new TranscriptStore(store, "b");
  const sink = new ListSink();
  return { transcripts, sink, records: new SessionRecords("b", sink, transcripts) };
}

const session = (id: string): Session => ({
  id,
  backendId: "b",
  title: id,
  createdAt: 1,
  updatedAt: 1,
  status: "idle",
});
const userMessage = (id: string, sessionId: string, text: string): Message => ({
  id,
  sessionId,
  role: "user",
  createdAt: 2,
  blocks: [{ id: `${id}-t`, kind: "text", text }],
});

describe("SessionRecords", () => {
  it("publishes every event to the hub and folds it into the session's transcript", () => {
    const { records, sink } = setup();
    records.publish("s1", [
      { type: "session.updated", session: session("s1") },
      { type: "message.updated", message: { id: "a1", sessionId: "s1", role: "assistant", createdAt: 3 } },
      { type: "block.updated", messageId: "a1", block: { id: "a1-t", kind: "text", text: "he" } },
      { type: "block.delta", messageId: "a1", blockId: "a1-t", field: "text", delta: "llo" },
    ]);
    expect(sink.published.map((p) => p.event.type)).toEqual([
      "session.updated",
      "message.updated",
      "block.updated",
      "block.delta",
    ]);
    const t = records.transcript("s1");
    expect(t?.messages).toHaveLength(1);
    expect(t?.messages[0]?.blocks[0]).toMatchObject({ kind: "text", text: "hello" });
  });

  it("goes on from the transcript the console kept, and knows nothing of a session never kept or emitted", () => {
    const { records, transcripts } = setup();
    transcripts.save({ session: session("s1"), messages: [userMessage("u1", "s1", "earlier")], todos: [] });
    expect(records.transcript("s2")).toBeUndefined();
    expect(records.messages("s1").map((m) => m.id)).toEqual(["u1"]);
    records.publish("s1", [
      { type: "message.updated", message: { id: "a1", sessionId: "s1", role: "assistant", createdAt: 3 } },
    ]);
    expect(records.messages("s1").map((m) => m.id)).toEqual(["u1", "a1"]);
  });

  it("starts over from a snapshot the adapter built (a replay, a history read)", () => {
    const { records } = setup();
    records.publish("s1", [
      { type: "message.updated", message: { id: "old", sessionId: "s1", role: "assistant", createdAt: 1 } },
    ]);
    records.seed("s1", { session: session("s1"), messages: [userMessage("u1", "s1", "replayed")], todos: [] });
    records.publish("s1", [
      { type: "message.updated", message: { id: "a2", sessionId: "s1", role: "assistant", createdAt: 5 } },
    ]);
    expect(records.messages("s1").map((m) => m.id)).toEqual(["u1", "a2"]);
    records.forget("s1");
    expect(records.transcript("s1")).toBeUndefined();
  });
});
