/**
 * The OpenCode adapter's reconciliation of pending interrupts, against a small fake OpenCode whose
 * pending lists and event stream the test controls (the real server cannot be made to fail on cue;
 * the real one is covered by the conformance suite and the end-to-end tests).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Backend, TimelineEvent } from "@/lib/model";
import { apply, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { startFakeOpencode, type FakeOpencode } from "../../../testkit/fake-opencode";
import type { EventSink, LoadedSession } from "../types";
import { OpencodeAdapter } from "./adapter";
import { until } from "@/testkit/until";

process.env.SWITCHBOARD_LOG ??= "silent";

class RecordingSink implements EventSink {
  states = new Map<string, SessionState>();
  events: { sessionId: string; event: TimelineEvent }[] = [];
  publish(_b: string, sessionId: string, event: TimelineEvent) {
    this.events.push({ sessionId, event });
    this.states.set(sessionId, apply(this.states.get(sessionId) ?? emptyState, event));
  }
  backendChanged(_b: Backend) {}
  openSessions() {
    return [];
  }
  reconcile(_b: string, _s: string, _fresh: LoadedSession) {}
  sessionState(_b: string, id: string) {
    return this.states.get(id);
  }
  async openSession() {}
  of(type: TimelineEvent["type"]) {
    return this.events.filter((e) => e.event.type === type);
  }
}

let fake: FakeOpencode | undefined;
let adapter: OpencodeAdapter | undefined;
afterEach(async () => {
  await adapter?.stop();
  await fake?.close();
  adapter = fake = undefined;
});

/** A pending bash permission as OpenCode lists it (shape from the captures). */
const permission = (sessionID: string) => ({
  id: "per_fakepending000001",
  sessionID,
  permission: "bash",
  patterns: ["echo hi"],
  metadata: { command: "echo hi" },
  always: ["echo *"],
  tool: { messageID: "msg_fakemalformed0001", callID: "call_fake_1" },
});

/** Cuts the event stream and waits until the adapter has reconnected and read the pending lists again. */
async function reconnect(f: FakeOpencode) {
  const connections = f.eventConnections;
  const lists = f.pendingListDirectories.length;
  f.dropStreams();
  await until(() => f.eventConnections > connections, "the adapter to reconnect");
  await until(() => f.pendingListDirectories.length > lists, "the pending lists to be read again");
  // Let the refresh finish (its answers are in; publishing is synchronous after them).
  await new Promise((r) => setTimeout(r, 200));
}

describe("OpencodeAdapter pending interrupts", () => {
  it("recovers a pending permission, keeps it when a pending list fails, and resolves it only once a list shows it gone", async () => {
    fake = await startFakeOpencode();
    fake.pending.permissions = [permission(fake.sessionId)];
    const sink = new RecordingSink();
    adapter = new OpencodeAdapter({ id: "oc", label: "OpenCode", baseUrl: fake.url }, sink);
    await adapter.start();

    // Asked while the console was away: recovered from the pending list on connect.
    const requested = await until(() => sink.of("interrupt.requested")[0], "the recovered permission");
    expect(requested.sessionId).toBe(fake.sessionId);
    expect(sink.states.get(fake.sessionId)!.interrupts.map((i) => i.id)).toEqual(["per_fakepending000001"]);

    // The session's directory is known once the session is read: its own instance is asked too.
    await adapter.getSession(fake.sessionId);
    fake.failPendingLists = true;
    await reconnect(fake);
    expect(fake.pendingListDirectories).toContain("/fake/project");
    // A list that failed proves nothing: the permission stays pending and answerable.
    expect(sink.of("interrupt.resolved")).toEqual([]);
    expect(sink.states.get(fake.sessionId)!.interrupts).toHaveLength(1);

    // Answered elsewhere while the console was away: the next list that is read resolves it.
    fake.failPendingLists = false;
    fake.pending.permissions = [];
    await reconnect(fake);
    await until(() => sink.of("interrupt.resolved").length === 1, "the interrupt to resolve");
    expect(sink.states.get(fake.sessionId)!.interrupts).toEqual([]);
  });

  it("a page load re-reads the pending lists (at most every few seconds) and publishes what was asked meanwhile", async () => {
    fake = await startFakeOpencode();
    const sink = new RecordingSink();
    adapter = new OpencodeAdapter({ id: "oc", label: "OpenCode", baseUrl: fake.url }, sink);
    await adapter.start();
    await until(() => fake!.pendingListDirectories.length >= 2, "the first read of the pending lists");
    await new Promise((r) => setTimeout(r, 100));
    // Asked while the event stream said nothing (OpenCode's stream has no replay).
    fake.pending.permissions = [permission(fake.sessionId)];
    const before = fake.pendingListDirectories.length;
    await adapter.refreshInterrupts();
    expect(fake.pendingListDirectories.length).toBeGreaterThan(before);
    await until(() => sink.of("interrupt.requested").length === 1, "the interrupt asked meanwhile");
    // A burst of page loads does not hammer the server; overlapping refreshes publish it once.
    const after = fake.pendingListDirectories.length;
    await Promise.all([adapter.refreshInterrupts(), adapter.refreshInterrupts(), adapter.refreshInterrupts()]);
    expect(fake.pendingListDirectories.length).toBe(after);
    expect(sink.of("interrupt.requested")).toHaveLength(1);
  });
});
