import { describe, expect, it } from "vitest";
import type { Interrupt, Message, ToolBlock } from "../model";
import { apply, emptyState } from "./reducer";
import { condense, figures, latestText, MAX_ROWS, TEXT_CHARS, toolLabel } from "./condense";

const tool = (over: Partial<ToolBlock>): ToolBlock => ({
  id: "tl",
  kind: "tool",
  callId: "c1",
  tool: "bash",
  rawTool: "bash",
  status: "running",
  input: {},
  ...over,
});

const user: Message = {
  id: "u1",
  sessionId: "s",
  role: "user",
  createdAt: 1,
  blocks: [
    { id: "ut", kind: "text", text: "Change the greeting\nand say why" },
    { id: "uf", kind: "file", name: "notes.md", mime: "text/markdown", url: "data:text/markdown;base64,eA==" },
  ],
};

describe("condensing a session's timeline for a comparison column", () => {
  it("keeps the prompt as a line, text as text, a tool call as a line with its status; leaves reasoning out once a turn moved on", () => {
    const reply: Message = {
      id: "a1",
      sessionId: "s",
      role: "assistant",
      createdAt: 2,
      blocks: [
        { id: "r", kind: "reasoning", text: "hmm" },
        tool({ id: "t1", tool: "write", rawTool: "write", status: "completed", input: { filePath: "greeting.txt" } }),
        { id: "x", kind: "text", text: "<b>Greeted</b> alpha." },
      ],
    };
    const rows = condense([user, reply]);
    expect(rows).toEqual([
      { kind: "prompt", id: "u1:prompt", text: "Change the greeting" },
      { kind: "file", id: "u1:uf", name: "notes.md" },
      { kind: "tool", id: "a1:t1", tool: "write", label: "greeting.txt", status: "completed" },
      // Model text stays text: the markup is characters, rendered inert by the view.
      { kind: "text", id: "a1:x", text: "<b>Greeted</b> alpha.", messageId: "a1" },
    ]);
    expect(latestText(rows)).toBe("a1:x");
  });

  it("shows a running turn's reasoning as one thinking row, its error or stop as a line, and the pending interrupts last", () => {
    const thinking: Message = {
      id: "a2",
      sessionId: "s",
      role: "assistant",
      createdAt: 3,
      blocks: [{ id: "r", kind: "reasoning", text: "a long chain of thought" }],
    };
    expect(condense([thinking]).map((r) => r.kind)).toEqual(["thinking"]);
    const failed: Message = {
      ...thinking,
      completedAt: 4,
      error: { name: "APIError", message: "rate limited\nretry later" },
    };
    expect(condense([failed])).toEqual([{ kind: "notice", id: "a2:error", level: "error", text: "rate limited" }]);
    const stopped: Message = { ...thinking, completedAt: 4, error: { name: "Abort", message: "x", aborted: true } };
    expect(condense([stopped])).toEqual([{ kind: "notice", id: "a2:error", level: "info", text: "Stopped" }]);
    const ask: Interrupt = { id: "p1", sessionId: "s", kind: "permission", createdAt: 5, title: "Run npm test?" };
    expect(condense([], [ask])).toEqual([
      { kind: "interrupt", id: "interrupt:p1", ask: "permission", title: "Run npm test?" },
    ]);
  });

  it("labels tool calls by their command, path, pattern or address, on one line", () => {
    expect(toolLabel(tool({ input: { command: "npm test\nnpm run lint" } }))).toBe("npm test");
    expect(toolLabel(tool({ tool: "grep", rawTool: "grep", input: { pattern: "TODO" } }))).toBe("TODO");
    expect(toolLabel(tool({ tool: "webfetch", rawTool: "webfetch", input: { url: "https://example.test" } }))).toBe(
      "https://example.test",
    );
    expect(toolLabel(tool({ tool: "other", rawTool: "mcp_thing", input: {} }))).toBe("mcp_thing");
    expect(toolLabel(tool({ tool: "other", rawTool: "mcp_thing", title: "Looked it up", input: {} }))).toBe(
      "Looked it up",
    );
  });

  it("follows the stream: each delta grows the text row, and only the changed message is condensed again", () => {
    let state = apply(emptyState, {
      type: "message.updated",
      message: { id: "a3", sessionId: "s", role: "assistant", createdAt: 1 },
    });
    state = apply(state, { type: "block.updated", messageId: "a3", block: { id: "x", kind: "text", text: "Hel" } });
    const before = condense([user, ...state.messages]);
    expect(before.at(-1)).toMatchObject({ kind: "text", text: "Hel" });
    state = apply(state, { type: "block.delta", messageId: "a3", blockId: "x", field: "text", delta: "lo" });
    const after = condense([user, ...state.messages]);
    expect(after.at(-1)).toMatchObject({ kind: "text", text: "Hello" });
    // The user message's rows are the same objects: a frame re-derives only what it changed.
    expect(after[0]).toBe(before[0]);
  });

  it("bounds a long text (keeping its end) and a long session (keeping the newest rows)", () => {
    const long: Message = {
      id: "a4",
      sessionId: "s",
      role: "assistant",
      createdAt: 1,
      blocks: [{ id: "x", kind: "text", text: `${"a".repeat(TEXT_CHARS)}THE END` }],
    };
    const [row] = condense([long]);
    expect(row).toMatchObject({ kind: "text" });
    expect((row as { text: string }).text).toMatch(/^….*THE END$/);
    expect((row as { text: string }).text.length).toBe(TEXT_CHARS + 1);
    const many: Message[] = Array.from({ length: MAX_ROWS + 10 }, (_, i) => ({
      id: `m${i}`,
      sessionId: "s",
      role: "assistant" as const,
      createdAt: i,
      blocks: [tool({ id: `t${i}` })],
    }));
    const rows = condense(many);
    expect(rows).toHaveLength(MAX_ROWS);
    expect(rows.at(-1)!.id).toBe(`m${MAX_ROWS + 9}:t${MAX_ROWS + 9}`);
  });

  it("sums a column's tokens and cost as the messages stream, and ends its time only once idle", () => {
    const reply = (id: string, createdAt: number, completedAt?: number): Message => ({
      id,
      sessionId: "s",
      role: "assistant",
      createdAt,
      ...(completedAt ? { completedAt } : {}),
      usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.5 },
      blocks: [],
    });
    const msgs = [user, reply("a1", 2, 5), reply("a2", 6)];
    expect(figures(msgs, false)).toEqual({ startedAt: 1, tokens: { input: 200, output: 20 }, costUsd: 1 });
    expect(figures([user, reply("a1", 2, 5), reply("a2", 6, 9)], true)).toMatchObject({ startedAt: 1, endedAt: 9 });
    expect(figures([], true)).toEqual({});
  });
});
