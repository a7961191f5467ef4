import { describe, expect, it } from "vitest";
import type { Interrupt, Session, TimelineEvent, ToolBlock } from "../model";
import { apply, applyAll, emptyState, type SessionState } from "./reducer";
import { diffStates } from "./diff";

const session: Session = { id: "s1", backendId: "b", title: "T", createdAt: 1, updatedAt: 1, status: "idle" };
const base: SessionState = { ...emptyState, session };
const msg = (id: string, createdAt: number, role: "user" | "assistant" = "assistant"): TimelineEvent => ({
  type: "message.updated",
  message: { id, sessionId: "s1", role, createdAt },
});
const tool = (status: ToolBlock["status"], extra: Partial<ToolBlock> = {}): ToolBlock => ({
  id: "p-tool",
  kind: "tool",
  callId: "call-1",
  tool: "bash",
  rawTool: "bash",
  status,
  input: { command: "ls" },
  ...extra,
});
const perm: Interrupt = {
  id: "per-1",
  sessionId: "s1",
  kind: "permission",
  toolCallId: "call-1",
  createdAt: 5,
  title: "bash: ls",
  permission: { action: "bash", patterns: ["ls"], options: [{ id: "once", label: "Allow once", kind: "allow_once" }] },
};

describe("reducer", () => {
  it("keeps who answered an interrupt on its message, once, batched or not, and the diff carries it", () => {
    const answered = {
      interruptId: "per-1",
      kind: "permission" as const,
      title: "bash: ls",
      decision: "allow_once",
      answeredBy: { id: "sub-ada", name: "Ada" },
      at: 7,
      messageId: "m1",
    };
    const events: TimelineEvent[] = [
      msg("m1", 1),
      { type: "interrupt.requested", interrupt: perm },
      { type: "interrupt.resolved", interruptId: "per-1", outcome: "allow", answered },
      // Told again (a reconnect's replay): still one record.
      { type: "interrupt.resolved", interruptId: "per-1", outcome: "allow", answered },
    ];
    const one = events.reduce(apply, base);
    const batched = applyAll(base, events);
    const { messageId: _m, ...record } = answered;
    expect(one.messages[0]?.answered).toEqual([record]);
    expect(batched.messages[0]?.answered).toEqual([record]);
    expect(one.interrupts).toEqual([]);
    expect(applyAll(base, diffStates(base, one)).messages[0]?.answered).toEqual([record]);
  });

  it("upserts messages in chronological order", () => {
    const s = applyAll(base, [msg("m2", 20), msg("m1", 10), msg("m3", 30)]);
    expect(s.messages.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
    const again = apply(s, {
      type: "message.updated",
      message: { id: "m2", sessionId: "s1", role: "assistant", createdAt: 20, completedAt: 25 },
    });
    expect(again.messages.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
    expect(again.messages[1]!.completedAt).toBe(25);
  });

  it("appends deltas and replaces on a full block update", () => {
    let s = applyAll(base, [
      msg("m1", 1),
      { type: "block.updated", messageId: "m1", block: { id: "p1", kind: "text", text: "" } },
    ]);
    s = applyAll(s, [
      { type: "block.delta", messageId: "m1", blockId: "p1", field: "text", delta: "Hel" },
      { type: "block.delta", messageId: "m1", blockId: "p1", field: "text", delta: "lo" },
    ]);
    expect(s.messages[0]!.blocks[0]).toEqual({ id: "p1", kind: "text", text: "Hello" });
    s = apply(s, { type: "block.updated", messageId: "m1", block: { id: "p1", kind: "text", text: "Hello!" } });
    expect(s.messages[0]!.blocks).toHaveLength(1);
    expect(s.messages[0]!.blocks[0]).toMatchObject({ text: "Hello!" });
  });

  it("keeps the identity of untouched messages (structural sharing)", () => {
    const s = applyAll(base, [
      msg("m1", 1),
      msg("m2", 2),
      { type: "block.updated", messageId: "m2", block: { id: "p", kind: "text", text: "" } },
    ]);
    const next = apply(s, { type: "block.delta", messageId: "m2", blockId: "p", field: "text", delta: "x" });
    expect(next.messages[0]).toBe(s.messages[0]);
    expect(next.messages[1]).not.toBe(s.messages[1]);
    expect(apply(next, { type: "block.delta", messageId: "nope", blockId: "p", field: "text", delta: "x" })).toBe(next);
  });

  it("shows a tool blocked on a permission as awaiting approval, then its outcome", () => {
    let s = applyAll(base, [
      msg("m1", 1),
      { type: "session.status", status: "busy" },
      { type: "block.updated", messageId: "m1", block: tool("running") },
    ]);
    s = apply(s, { type: "interrupt.requested", interrupt: perm });
    expect((s.messages[0]!.blocks[0] as ToolBlock).status).toBe("awaiting-approval");
    expect(s.session!.status).toBe("waiting");
    // OpenCode re-sends the running part while the permission is pending: it stays awaiting.
    s = apply(s, { type: "block.updated", messageId: "m1", block: tool("running") });
    expect((s.messages[0]!.blocks[0] as ToolBlock).status).toBe("awaiting-approval");
    s = apply(s, { type: "interrupt.resolved", interruptId: "per-1", outcome: "once" });
    expect((s.messages[0]!.blocks[0] as ToolBlock).status).toBe("running");
    expect(s.session!.status).toBe("busy");
    s = apply(s, { type: "block.updated", messageId: "m1", block: tool("completed", { output: "a\n", exitCode: 0 }) });
    expect(s.messages[0]!.blocks[0]).toMatchObject({ status: "completed", output: "a\n" });
  });

  it("shows a subagent's interrupt on the parent's task block", () => {
    const task = tool("running", {
      id: "p-task",
      callId: "call-task",
      tool: "task",
      rawTool: "task",
      childSessionId: "child",
    });
    let s = applyAll(base, [
      msg("m1", 1),
      { type: "session.status", status: "busy" },
      { type: "block.updated", messageId: "m1", block: task },
    ]);
    const childPerm: Interrupt = {
      ...perm,
      id: "per-child",
      sessionId: "child",
      ownerSessionId: "s1",
      toolCallId: "call-in-child",
    };
    s = apply(s, { type: "interrupt.requested", interrupt: childPerm });
    expect((s.messages[0]!.blocks[0] as ToolBlock).status).toBe("awaiting-approval");
    expect(s.session!.status).toBe("waiting");
    s = apply(s, { type: "interrupt.resolved", interruptId: "per-child", outcome: "reject" });
    // the subagent's tool was denied, not the task
    expect((s.messages[0]!.blocks[0] as ToolBlock).status).toBe("running");
  });

  it("keeps the live status when a session.updated carries metadata only", () => {
    const s = applyAll(base, [
      { type: "session.status", status: "busy" },
      { type: "session.updated", session: { ...session, title: "New", status: "idle" } },
    ]);
    expect(s.session).toMatchObject({ title: "New", status: "busy" });
  });

  it("removes messages and blocks", () => {
    let s = applyAll(base, [
      msg("m1", 1),
      msg("m2", 2),
      { type: "block.updated", messageId: "m1", block: { id: "p", kind: "text", text: "a" } },
    ]);
    s = apply(s, { type: "block.removed", messageId: "m1", blockId: "p" });
    expect(s.messages[0]!.blocks).toHaveLength(0);
    s = apply(s, { type: "message.removed", messageId: "m1" });
    expect(s.messages.map((m) => m.id)).toEqual(["m2"]);
  });

  it("records errors until the next turn starts", () => {
    let s = apply(base, { type: "error", message: "bad request", code: "APIError" });
    expect(s.lastError).toEqual({ message: "bad request", code: "APIError" });
    s = apply(s, { type: "session.status", status: "busy" });
    expect(s.lastError).toBeUndefined();
  });
});

describe("diffStates (reconciliation)", () => {
  const old = applyAll(base, [
    msg("m1", 1, "user"),
    { type: "block.updated", messageId: "m1", block: { id: "u", kind: "text", text: "hi" } },
    msg("m2", 2),
    { type: "block.updated", messageId: "m2", block: { id: "t", kind: "text", text: "Hel" } },
    { type: "session.status", status: "busy" },
  ]);

  it("turns a stale state into the fresh one", () => {
    const fresh = applyAll(old, [
      { type: "block.updated", messageId: "m2", block: { id: "t", kind: "text", text: "Hello there" } },
      { type: "block.updated", messageId: "m2", block: tool("completed", { output: "x" }) },
      msg("m3", 3),
      { type: "block.updated", messageId: "m3", block: { id: "t3", kind: "text", text: "done" } },
      { type: "todo.updated", todos: [{ content: "a", status: "done" }] },
      { type: "session.status", status: "idle" },
    ]);
    const events = diffStates(old, fresh);
    expect(applyAll(old, events)).toEqual(fresh);
  });

  it("removes what the backend dropped, resolves interrupts answered elsewhere", () => {
    const withPerm = applyAll(old, [
      { type: "block.updated", messageId: "m2", block: tool("running") },
      { type: "interrupt.requested", interrupt: perm },
    ]);
    const fresh = applyAll(base, [
      msg("m1", 1, "user"),
      { type: "block.updated", messageId: "m1", block: { id: "u", kind: "text", text: "hi" } },
    ]);
    const result = applyAll(withPerm, diffStates(withPerm, fresh));
    expect(result.messages.map((m) => m.id)).toEqual(["m1"]);
    expect(result.interrupts).toEqual([]);
    expect(result.session!.status).toBe("idle");
  });

  it("is empty when nothing changed", () => {
    expect(diffStates(old, old)).toEqual([]);
  });
});
