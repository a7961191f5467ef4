import { describe, expect, it } from "vitest";
import type { Interrupt, Message, SessionStatus, ToolBlock } from "../model";
import {
  changeTotals,
  contextTokens,
  currentContext,
  interruptAnchor,
  interruptAsks,
  interruptBlocks,
  isBusy,
  isWaiting,
  mergeChanges,
  reportedStatus,
  shownStatus,
  turns,
  turnUsage,
  userText,
} from "./selectors";

const u = (id: string, text: string, diffs?: Message["diffs"]): Message => ({
  id,
  sessionId: "s",
  role: "user",
  createdAt: 0,
  blocks: [{ id: `${id}t`, kind: "text", text }],
  ...(diffs ? { diffs } : {}),
});
const a = (id: string, input = 0, output = 0, extra: Partial<NonNullable<Message["usage"]>> = {}): Message => ({
  id,
  sessionId: "s",
  role: "assistant",
  createdAt: 0,
  blocks: [],
  ...(input || output ? { usage: { inputTokens: input, outputTokens: output, ...extra } } : {}),
});

describe("turn selectors", () => {
  const msgs = [
    a("m0"),
    u("m1", "write a", [{ path: "a.txt", status: "added", additions: 2, deletions: 0 }]),
    a("m2", 100, 10),
    a("m3", 120, 5, { cacheReadTokens: 50, costUsd: 0.01 }),
    u("m4", "edit a and b", [
      { path: "a.txt", status: "modified", additions: 1, deletions: 1 },
      { path: "b.txt", status: "modified", additions: 3, deletions: 4 },
    ]),
    a("m5", 200, 7),
    u("m6", "delete b", [{ path: "b.txt", status: "deleted", additions: 0, deletions: 9 }]),
  ];

  it("groups messages into turns from each user message to the next", () => {
    const t = turns(msgs);
    expect(t.map((x) => [x.user.id, x.start, x.end])).toEqual([
      ["m1", 1, 3],
      ["m4", 4, 5],
      ["m6", 6, 6],
    ]);
    expect(t[1]!.totals).toEqual({ files: 2, additions: 4, deletions: 5 });
    expect(changeTotals([])).toEqual({ files: 0, additions: 0, deletions: 0 });
    expect(userText(t[0]!.user)).toBe("write a");
  });

  it("merges the changes of several turns per file", () => {
    expect(mergeChanges(turns(msgs))).toEqual([
      { path: "a.txt", status: "added", additions: 3, deletions: 1, turnIds: ["m1", "m4"] },
      { path: "b.txt", status: "deleted", additions: 3, deletions: 13, turnIds: ["m4", "m6"] },
    ]);
  });

  it("usage per turn sums its assistant messages; context is the newest step's", () => {
    const [t1] = turns(msgs);
    expect(turnUsage(msgs, t1!)).toEqual({
      inputTokens: 220,
      outputTokens: 15,
      reasoningTokens: 0,
      cacheReadTokens: 50,
      cacheWriteTokens: 0,
      costUsd: 0.01,
    });
    expect(turnUsage(msgs, { start: 6, end: 6 })).toBeUndefined();
    expect(contextTokens({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 5, reasoningTokens: 1 })).toBe(18);
    expect(currentContext(msgs)).toMatchObject({ tokens: 207, message: { id: "m5" } });
    expect(currentContext([u("x", "hi")])).toBeUndefined();
  });
});

describe("busy, waiting and where an interrupt shows", () => {
  it("derives busy and waiting from the status", () => {
    expect(["busy", "retry", "waiting", "idle", "error"].map((s) => isBusy(s as SessionStatus))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(isBusy(undefined)).toBe(false);
    expect(isWaiting("waiting")).toBe(true);
    expect(isWaiting("busy")).toBe(false);
    expect(shownStatus("busy", 1)).toBe("waiting");
    expect(shownStatus("retry", 2)).toBe("waiting");
    expect(shownStatus("idle", 1)).toBe("idle");
    expect(shownStatus("busy", 0)).toBe("busy");
    expect(reportedStatus("waiting")).toBe("busy");
    expect(reportedStatus("retry")).toBe("retry");
  });

  it("anchors a subagent's interrupt in the session that owns the subagent", () => {
    const own = { sessionId: "s1" };
    const sub = { sessionId: "child", ownerSessionId: "s1" };
    expect(interruptAnchor(own)).toBe("s1");
    expect(interruptAnchor(sub)).toBe("s1");
    expect(interruptBlocks(sub, "s1")).toBe(true);
    expect(interruptBlocks(sub, "child")).toBe(true);
    expect(interruptBlocks(own, "child")).toBe(false);
  });

  it("matches the tool an interrupt is about: the call that asked, or the task whose subagent asked", () => {
    const tool = (callId: string, childSessionId?: string) =>
      ({
        id: callId,
        kind: "tool",
        callId,
        tool: "bash",
        status: "running",
        input: {},
        ...(childSessionId ? { childSessionId } : {}),
      }) as ToolBlock;
    const it = { id: "i", sessionId: "s1", kind: "permission", createdAt: 1, toolCallId: "c1" } as Interrupt;
    expect(interruptAsks(it, "s1")(tool("c1"))).toBe(true);
    expect(interruptAsks(it, "s1")(tool("c2"))).toBe(false);
    const fromChild = { ...it, sessionId: "child", toolCallId: "other" } as Interrupt;
    expect(interruptAsks(fromChild, "s1")(tool("task1", "child"))).toBe(true);
    expect(interruptAsks(fromChild, "child")(tool("task1", "child"))).toBe(false);
  });
});
