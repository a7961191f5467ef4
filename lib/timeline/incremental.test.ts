import { describe, expect, it } from "vitest";
import type { Message, TimelineEvent, ToolBlock } from "../model";
import { childSessionIds } from "./incremental";
import { apply, applyAll, type SessionState } from "./reducer";

const tool = (id: string, child?: string): ToolBlock => ({
  id,
  kind: "tool",
  callId: `c-${id}`,
  tool: "task",
  rawTool: "task",
  status: "running",
  input: {},
  ...(child ? { childSessionId: child } : {}),
});

function state(n: number): SessionState {
  const messages: Message[] = [];
  for (let i = 0; i < n; i++) {
    messages.push({
      id: `m${String(i).padStart(4, "0")}`,
      sessionId: "s",
      role: i % 2 ? "assistant" : "user",
      createdAt: i,
      blocks: i % 2 ? [{ id: `t${i}`, kind: "text", text: "x" }] : [{ id: `u${i}`, kind: "text", text: "hi" }],
    });
  }
  return {
    session: { id: "s", backendId: "b", title: "t", createdAt: 0, updatedAt: 0, status: "busy" },
    messages,
    interrupts: [],
    todos: [],
  };
}

describe("childSessionIds", () => {
  it("follows block changes that keep the list's shape, in any message", () => {
    let s = state(40);
    expect(childSessionIds(s.messages)).toEqual([]);
    // A tool with a subagent in the newest message (the list's shape is kept).
    s = apply(s, { type: "block.updated", messageId: "m0039", block: tool("k1", "child-1") });
    expect(childSessionIds(s.messages)).toEqual(["child-1"]);
    // Deltas on another block: same answer.
    const d: TimelineEvent = { type: "block.delta", messageId: "m0039", blockId: "t39", field: "text", delta: "y" };
    s = applyAll(s, [d, d, d]);
    expect(childSessionIds(s.messages)).toEqual(["child-1"]);
    // An older message gains one (not only the newest message is looked at).
    s = apply(s, { type: "block.updated", messageId: "m0003", block: tool("k2", "child-0") });
    expect(childSessionIds(s.messages)).toEqual(["child-0", "child-1"]);
    // The same subagent twice counts once; a removed block takes its subagent away.
    s = apply(s, { type: "block.updated", messageId: "m0005", block: tool("k3", "child-1") });
    expect(childSessionIds(s.messages)).toEqual(["child-0", "child-1"]);
    s = apply(s, { type: "block.removed", messageId: "m0003", blockId: "k2" });
    expect(childSessionIds(s.messages)).toEqual(["child-1"]);
  });

  it("starts over when the list's shape changes, and answers for an older array too", () => {
    let s = state(10);
    s = apply(s, { type: "block.updated", messageId: "m0009", block: tool("k1", "child-1") });
    const before = s.messages;
    s = apply(s, { type: "message.removed", messageId: "m0009" });
    expect(childSessionIds(s.messages)).toEqual([]);
    expect(childSessionIds(before)).toEqual(["child-1"]);
    s = apply(s, {
      type: "message.updated",
      message: { id: "m0100", sessionId: "s", role: "assistant", createdAt: 100 },
    });
    s = apply(s, { type: "block.updated", messageId: "m0100", block: tool("k9", "child-9") });
    expect(childSessionIds(s.messages)).toEqual(["child-9"]);
  });
});
