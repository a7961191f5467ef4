import { describe, expect, it } from "vitest";
import { TimelineEvent, type Message, type TextBlock, type ToolBlock } from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { completedTool } from "../../../testkit/adapter-harness";
import { applyZotEvent, beginCompaction, beginTurn, endTurn, GENERIC_ERROR } from "./normalize";
import { editDiffs, parsePartialJson, splitExit } from "./tools";

const SID = "zot_s1";
const session = { id: SID, backendId: "zot", title: "t", createdAt: 1, updatedAt: 1, status: "idle" as const };

/** Runs frames through a fresh turn and the reducer; every event must pass the canonical schema. */
function run(frames: unknown[], opts: { end?: Parameters<typeof endTurn>[2]; contextWindow?: number } = {}) {
  const { turn, events } = beginTurn(
    SID,
    { userId: "m1-u", assistantId: "m1-a" },
    [{ type: "text", text: "fix the test" }],
    1000,
    {
      model: { provider: "openai", id: "fake-model" },
      ...(opts.contextWindow ? { contextWindow: opts.contextWindow } : {}),
    },
  );
  let t = 1001;
  for (const f of frames) events.push(...applyZotEvent(turn, f, t++));
  if (opts.end !== null) events.push(...endTurn(turn, t, opts.end ?? {}));
  for (const e of events) expect(TimelineEvent.safeParse(e).success, JSON.stringify(e)).toBe(true);
  const state: SessionState = applyAll({ ...emptyState, session }, events);
  return { turn, events, state, reply: state.messages.find((m) => m.id === "m1-a")! };
}

const texts = (m: Message) => m.blocks.filter((b): b is TextBlock => b.kind === "text").map((b) => b.text);
const tools = (m: Message) => m.blocks.filter((b): b is ToolBlock => b.kind === "tool");
const notices = (m: Message) => m.blocks.flatMap((b) => (b.kind === "notice" ? [`${b.level}: ${b.text}`] : []));

// The order of zot's run loop for a prompt with one tool call (with argument streaming, not in zot's RPC document: an optional path).
const ONE_TOOL = [
  { type: "user_message", content: [{ type: "text", text: "fix the test" }], time: "2026-05-06T10:00:00Z" },
  { type: "turn_start", step: 1 },
  { type: "assistant_start" },
  { type: "text_delta", delta: "Let me " },
  { type: "text_delta", delta: "look." },
  { type: "tool_use_start", id: "toolu_1", name: "bash" },
  { type: "tool_use_args", id: "toolu_1", delta: '{"comm' },
  { type: "tool_use_args", id: "toolu_1", delta: 'and":"echo hi' },
  { type: "tool_use_args", id: "toolu_1", delta: '"}' },
  { type: "tool_use_end", id: "toolu_1" },
  {
    type: "usage",
    input: 100,
    output: 20,
    cache_read: 50,
    cache_write: 0,
    cost_usd: 0.001,
    cumulative: { input: 100, output: 20, cache_read: 50, cache_write: 0, cost_usd: 0.001 },
  },
  {
    type: "assistant_message",
    content: [
      { type: "text", text: "Let me look." },
      { type: "tool_call", id: "toolu_1", name: "bash", args: { command: "echo hi" } },
    ],
    time: "2026-05-06T10:00:01Z",
  },
  { type: "tool_call", id: "toolu_1", name: "bash", args: { command: "echo hi" } },
  { type: "turn_end", stop: "tool_use" },
  { type: "tool_progress", id: "toolu_1", text: "hi\n" },
  { type: "tool_result", id: "toolu_1", is_error: false, content: [{ type: "text", text: "hi\n[exit 0]" }] },
  { type: "turn_start", step: 2 },
  { type: "assistant_start" },
  { type: "text_delta", delta: "It printed hi." },
  {
    type: "usage",
    input: 140,
    output: 10,
    cache_read: 0,
    cache_write: 0,
    cost_usd: 0.002,
    reasoning: null,
    cumulative: { input: 240, output: 30, cache_read: 50, cache_write: 0, cost_usd: 0.003 },
  },
  { type: "assistant_message", content: [{ type: "text", text: "It printed hi." }], time: "2026-05-06T10:00:02Z" },
  { type: "turn_end", stop: "end_turn" },
];

describe("zot normalizer", () => {
  it("maps a prompt with one tool call: text per model call, the tool by id with streamed arguments and output", () => {
    const { state, reply, events } = run(ONE_TOOL, { contextWindow: 128_000 });
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(texts(state.messages[0]!)).toEqual(["fix the test"]);
    expect(reply.blocks.map((b) => b.kind)).toEqual(["text", "tool", "text"]);
    expect(texts(reply)).toEqual(["Let me look.", "It printed hi."]);
    const [bash] = tools(reply);
    expect(bash).toMatchObject(
      completedTool("bash", {
        callId: "toolu_1",
        input: { command: "echo hi" },
        title: "echo hi",
        output: "hi",
        exitCode: 0,
      }),
    );
    // the text streamed as deltas, the output too
    expect(events.filter((e) => e.type === "block.delta" && e.field === "text")).toHaveLength(3);
    expect(events.some((e) => e.type === "block.delta" && e.field === "output" && e.delta === "hi\n")).toBe(true);
    // arguments streamed: the command showed while the tool was still pending (before tool_call)
    const partial = events
      .filter((e) => e.type === "block.updated" && e.block.kind === "tool" && e.block.status === "pending")
      .map((e) => (e.type === "block.updated" && e.block.kind === "tool" ? e.block.input : {}));
    expect(partial).toContainEqual({ command: "echo hi" });
    // usage: the run's calls summed on the message, the session's from zot's cumulative totals
    expect(reply.usage).toMatchObject({
      inputTokens: 240,
      outputTokens: 30,
      cacheReadTokens: 50,
      costUsd: 0.003,
      contextTokens: 150,
      contextWindow: 128_000,
    });
    expect(state.session!.usage).toMatchObject({
      inputTokens: 240,
      outputTokens: 30,
      cacheReadTokens: 50,
      contextTokens: 150,
    });
    expect(reply.completedAt).toBeDefined();
    expect(reply.error).toBeUndefined();
  });

  it("adds the session's earlier usage to a new process's cumulative totals", () => {
    const { turn, events } = beginTurn(SID, { userId: "u", assistantId: "a" }, [{ type: "text", text: "x" }], 1, {
      base: { inputTokens: 1000, outputTokens: 100, costUsd: 0.5 },
    });
    events.push(
      ...applyZotEvent(
        turn,
        {
          type: "usage",
          input: 10,
          output: 5,
          cache_read: 0,
          cache_write: 0,
          cost_usd: 0.01,
          cumulative: { input: 10, output: 5, cache_read: 0, cache_write: 0, cost_usd: 0.01 },
        },
        2,
      ),
    );
    const u = events.find((e) => e.type === "usage.updated");
    expect(u).toMatchObject({ usage: { inputTokens: 1010, outputTokens: 105, costUsd: 0.51 } });
  });

  it("aborted while the model streams: turn_end aborted, then done; the reply is marked stopped", () => {
    const { reply } = run([
      { type: "turn_start", step: 1 },
      { type: "assistant_start" },
      { type: "text_delta", delta: "Partial" },
      { type: "tool_use_start", id: "t9", name: "write" },
      { type: "tool_use_args", id: "t9", delta: '{"path":"a.txt","content":"hal' },
      { type: "turn_end", stop: "aborted" },
    ]);
    expect(texts(reply)).toEqual(["Partial"]);
    expect(tools(reply)[0]).toMatchObject({
      status: "cancelled",
      input: { path: "a.txt", content: "hal" },
      title: "a.txt",
    });
    expect(reply.error).toEqual({ name: "Aborted", message: "Stopped", aborted: true });
  });

  it("aborted while a tool runs: no turn_end aborted (the core bails out), the console's abort marks it", () => {
    const { reply } = run(
      [
        { type: "tool_call", id: "t1", name: "bash", args: { command: "sleep 10" } },
        { type: "turn_end", stop: "tool_use" },
        {
          type: "tool_result",
          id: "t1",
          is_error: true,
          content: [{ type: "text", text: "aborted: context canceled" }],
        },
      ],
      { end: { aborted: true } },
    );
    expect(tools(reply)[0]).toMatchObject({ status: "cancelled" });
    expect(reply.error?.aborted).toBe(true);
  });

  it("errors: turn_end {stop:error} fails the run (its error shown once); an `error` event is a non-fatal notice and the reply goes on", () => {
    const { reply } = run([
      { type: "turn_start", step: 1 },
      { type: "assistant_start" },
      { type: "turn_end", stop: "error", error: "openai: stream error: connection reset" },
      { type: "error", message: "openai: stream error: connection reset" },
    ]);
    expect(notices(reply)).toEqual(["error: openai: stream error: connection reset"]);
    expect(reply.error).toEqual({ name: "ZotError", message: "openai: stream error: connection reset" });
    const goesOn = run([
      { type: "assistant_start" },
      { type: "text_delta", delta: "Half " },
      { type: "error", message: "provider rate limit: retrying the stream" },
      { type: "text_delta", delta: "and the rest." },
      { type: "turn_end", stop: "end_turn" },
    ]).reply;
    expect(notices(goesOn)).toEqual(["warn: zot reported an error: provider rate limit: retrying the stream"]);
    expect(texts(goesOn)).toEqual(["Half and the rest."]);
    expect(goesOn.error).toBeUndefined();
    const bare = run([{ type: "error" }]).reply;
    expect(notices(bare)).toEqual([`warn: ${GENERIC_ERROR}`]);
    expect(bare.error).toBeUndefined();
  });

  it("a failed tool is an error; a bash exit code is read from its [exit N] line; a reply cut at the limit says so", () => {
    const { reply } = run([
      { type: "tool_call", id: "a", name: "bash", args: { command: "false" } },
      { type: "tool_call", id: "b", name: "read", args: { path: "missing.txt" } },
      { type: "turn_end", stop: "tool_use" },
      { type: "tool_result", id: "a", is_error: true, content: [{ type: "text", text: "[exit 1]" }] },
      {
        type: "tool_result",
        id: "b",
        is_error: true,
        content: [{ type: "text", text: "open /w/missing.txt: no such file or directory" }],
      },
      { type: "assistant_start" },
      { type: "text_delta", delta: "Cut" },
      { type: "turn_end", stop: "length" },
    ]);
    const [a, b] = tools(reply);
    expect(a).toMatchObject({ tool: "bash", status: "error", exitCode: 1, output: "" });
    expect(b).toMatchObject({ tool: "read", status: "error", error: "open /w/missing.txt: no such file or directory" });
    // the error is not shown again as the read file's content
    expect(b!.output).toBeUndefined();
    expect(notices(reply)).toEqual(["warn: The reply was cut off: the model reached its output limit."]);
  });

  it("edits and writes carry their diff; unknown tools keep their raw name", () => {
    const { reply } = run([
      {
        type: "tool_call",
        id: "e",
        name: "edit",
        args: { path: "a.ts", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }] },
      },
      { type: "tool_call", id: "w", name: "write", args: { path: "b.txt", content: "one\ntwo\n" } },
      { type: "tool_call", id: "x", name: "weather", args: { city: "Bern" } },
      {
        type: "tool_result",
        id: "e",
        is_error: false,
        content: [
          { type: "text", text: "applied 1 edit(s) to a.ts\n--- a.ts\n+++ a.ts\n-const a = 1;\n+const a = 2;\n" },
        ],
      },
      { type: "tool_result", id: "w", is_error: false, content: [{ type: "text", text: "wrote 8 bytes to b.txt" }] },
      { type: "tool_result", id: "x", is_error: false, content: [{ type: "text", text: "sunny" }] },
    ]);
    const [e, w, x] = tools(reply);
    expect(e!.diff).toEqual([
      {
        path: "a.ts",
        status: "modified",
        additions: 1,
        deletions: 1,
        patch: "--- a/a.ts\n+++ b/a.ts\n@@ -1,1 +1,1 @@\n-const a = 1;\n+const a = 2;\n",
      },
    ]);
    // zot's own line diff after the summary is left to the diff
    expect(e!.output).toBe("applied 1 edit(s) to a.ts");
    expect(w!.diff![0]).toMatchObject({ path: "b.txt", status: "added", additions: 2, deletions: 0 });
    expect(x).toMatchObject({ tool: "other", rawTool: "weather", output: "sunny", status: "completed" });
  });

  it("tool progress lines, codemode ids out of order, and a result for a call it never saw", () => {
    const { reply } = run([
      { type: "tool_call", id: "p", name: "codemode", args: { script: "…" } },
      { type: "tool_call", id: "p/2", name: "read", args: { path: "y" } },
      { type: "tool_call", id: "p/1", name: "read", args: { path: "x" } },
      { type: "tool_progress", id: "p", text: "step one" },
      { type: "tool_result", id: "p/1", is_error: false, content: [{ type: "text", text: "X" }] },
      { type: "tool_result", id: "p/2", is_error: false, content: [{ type: "text", text: "Y" }] },
      { type: "tool_result", id: "p", is_error: false, content: [{ type: "text", text: "done" }] },
      { type: "tool_result", id: "ghost", is_error: false, content: [{ type: "text", text: "boo" }] },
    ]);
    expect(tools(reply).map((t) => [t.callId, t.status, t.output])).toEqual([
      ["p", "completed", "done"],
      ["p/2", "completed", "Y"],
      ["p/1", "completed", "X"],
      ["ghost", "completed", "boo"],
    ]);
  });

  it("the final assistant_message wins over what the deltas built (and fills a reply that did not stream)", () => {
    const { reply } = run([
      { type: "assistant_start" },
      { type: "text_delta", delta: "Hel" },
      { type: "assistant_message", content: [{ type: "text", text: "Hello." }] },
      { type: "assistant_start" },
      { type: "assistant_message", content: [{ type: "text", text: "Not streamed." }] },
    ]);
    expect(texts(reply)).toEqual(["Hello.", "Not streamed."]);
  });

  it("extension notifications become notices; user_message, turn_start and unknown types add nothing", () => {
    const { reply } = run([
      { type: "ext_notify", extension: "guard", level: "warn", message: "blocked rm -rf" },
      { type: "ext_display", extension: "clock", text: "12:00" },
      { type: "user_message", content: [{ type: "text", text: "x" }] },
      { type: "user_prompt_submit" },
      { type: "before_compact" },
      { type: "something_new", x: 1 },
    ]);
    expect(notices(reply)).toEqual(["warn: guard: blocked rm -rf", "info: clock: 12:00"]);
  });

  it("malformed frames yield nothing and never throw", () => {
    const { turn } = beginTurn(SID, { userId: "u", assistantId: "a" }, [{ type: "text", text: "x" }], 1);
    const junk: unknown[] = [
      null,
      undefined,
      42,
      "text_delta",
      [],
      { type: 7 },
      { type: "text_delta" },
      { type: "text_delta", delta: 5 },
      { type: "tool_call" },
      { type: "tool_call", id: 3, name: "bash" },
      { type: "tool_use_args", id: "q" },
      { type: "tool_progress", id: "q", text: null },
      { type: "tool_result" },
      { type: "usage", input: "many" },
      { type: "usage", cumulative: "no" },
      { type: "turn_end", stop: 9 },
      { type: "assistant_message", content: "nope" },
      { type: "assistant_message", content: [null, 1, { type: "text" }] },
      { type: "compact_done", summary: {} },
      { type: "ext_notify" },
      Object.create(null),
    ];
    for (const f of junk) {
      const events = applyZotEvent(turn, f, 2);
      for (const e of events) expect(TimelineEvent.safeParse(e).success).toBe(true);
    }
    expect(applyZotEvent(turn, { type: "text_delta" }, 2)).toEqual([]);
    expect(applyZotEvent(turn, { type: "tool_call", id: 3 }, 2)).toEqual([]);
  });

  it("compaction: a divider and a summary message with the summary text; a failed one says so", () => {
    const { turn, events } = beginCompaction(SID, { markerId: "c1-u", summaryId: "c1-a" }, 5);
    events.push(...applyZotEvent(turn, { type: "compact_done", summary: "## Summary\n- asked for tests" }, 6));
    events.push(...endTurn(turn, 7));
    const state = applyAll({ ...emptyState, session }, events);
    const [divider, summary] = state.messages;
    expect(divider!.role).toBe("user");
    expect(divider!.blocks).toEqual([
      {
        id: "c1-u-b0",
        kind: "notice",
        level: "info",
        code: "compaction",
        text: "Conversation compacted: zot goes on from this summary",
      },
    ]);
    expect(summary!.summary).toBe(true);
    expect(texts(summary!)).toEqual(["## Summary\n- asked for tests"]);
    expect(summary!.completedAt).toBe(7);

    // An error during a compaction is not its end: the summary that follows is kept.
    const slow = beginCompaction(SID, { markerId: "c3-u", summaryId: "c3-a" }, 8);
    slow.events.push(
      ...applyZotEvent(slow.turn, { type: "error", message: "summary model slow" }, 9),
      ...applyZotEvent(slow.turn, { type: "compact_done", summary: "kept" }, 9),
      ...endTurn(slow.turn, 10),
    );
    const kept = applyAll({ ...emptyState, session }, slow.events);
    expect(texts(kept.messages[1]!)).toEqual(["kept"]);
    expect(kept.messages[1]!.error).toBeUndefined();

    const failed = beginCompaction(SID, { markerId: "c2-u", summaryId: "c2-a" }, 8);
    failed.events.push(
      ...applyZotEvent(failed.turn, { type: "error", message: "openai: 500 boom" }, 9),
      ...endTurn(failed.turn, 10),
    );
    const after = applyAll({ ...emptyState, session }, failed.events);
    expect(after.messages[0]!.blocks[0]).toMatchObject({ text: "Compaction failed" });
    expect(after.messages[1]!.error).toEqual({ name: "ZotError", message: "openai: 500 boom" });
  });

  it("a process that died mid-run: running tools fail and the reply carries the failure", () => {
    const { reply } = run([{ type: "tool_call", id: "t", name: "bash", args: { command: "sleep 5" } }], {
      end: { failure: { name: "AgentExited", message: "The zot process was killed by SIGKILL." } },
    });
    expect(tools(reply)[0]).toMatchObject({ status: "error", error: "The zot process was killed by SIGKILL." });
    expect(reply.error).toEqual({ name: "AgentExited", message: "The zot process was killed by SIGKILL." });
    expect(notices(reply)).toEqual(["error: The zot process was killed by SIGKILL."]);
  });
});

describe("terva (zot's successor, terva-sh/terva docs/rpc.md at 17746285)", () => {
  it("reads its nested usage, its assistant_message {message} and its error {error} as the run's failure", () => {
    const { reply, events } = run([
      { type: "user_message", message: { role: "user", content: [{ type: "text", text: "fix the test" }] } },
      { type: "turn_start", step: 1 },
      { type: "assistant_start" },
      { type: "text_delta", delta: "Half" },
      {
        type: "usage",
        usage: { input: 100, output: 20, cache_read: 5, cache_write: 0, cost_usd: 0.01 },
        cumulative: { input: 300, output: 60, cache_read: 5, cache_write: 0, cost_usd: 0.03 },
      },
      { type: "assistant_message", message: { role: "assistant", content: [{ type: "text", text: "Half done." }] } },
      { type: "turn_end", stop: "end" },
      { type: "error", error: "provider returned 529: overloaded" },
    ]);
    expect(texts(reply)).toEqual(["Half done."]);
    expect(reply.usage).toMatchObject({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 5, costUsd: 0.01 });
    expect(events.find((e) => e.type === "usage.updated")).toMatchObject({
      usage: { inputTokens: 300, outputTokens: 60 },
    });
    expect(reply.error).toMatchObject({ message: "provider returned 529: overloaded" });
    expect(notices(reply)).toEqual(["error: provider returned 529: overloaded"]);
  });

  it("user_message_rejected: the run fails with the guard's reason and the refused prompt quoted", () => {
    const { reply } = run([
      { type: "user_message_rejected", text: "prompts that name secrets are blocked", rejected: "print the AWS key" },
    ]);
    expect(reply.error?.message).toBe(
      "The agent refused the prompt (“print the AWS key”): prompts that name secrets are blocked",
    );
    expect(notices(reply)).toHaveLength(1);
  });
});

describe("helpers", () => {
  it("parsePartialJson closes prefixes", () => {
    expect(parsePartialJson('{"command":"echo hi')).toEqual({ command: "echo hi" });
    expect(parsePartialJson('{"path":"a","edits":[{"oldText":"x","newT')).toEqual({
      path: "a",
      edits: [{ oldText: "x" }],
    });
    expect(parsePartialJson('{"a":1,')).toEqual({ a: 1 });
    expect(parsePartialJson('{"a":"x\\')).toEqual({ a: "x" });
    expect(parsePartialJson("")).toBeUndefined();
    expect(parsePartialJson("[1,2")).toBeUndefined();
  });

  it("splitExit reads zot's bash trailer", () => {
    expect(splitExit("a\nb\n[exit 0]")).toEqual({ output: "a\nb", exitCode: 0 });
    expect(splitExit("[exit 127]")).toEqual({ output: "", exitCode: 127 });
    expect(splitExit("x\n... [truncated at 2000 lines]\n[exit 0] (full output: /tmp/zot-bash-1.log)")).toEqual({
      output: "x\n... [truncated at 2000 lines]\n(full output: /tmp/zot-bash-1.log)",
      exitCode: 0,
    });
    expect(splitExit("no trailer")).toEqual({ output: "no trailer" });
  });

  it("editDiffs needs a path and string pairs", () => {
    expect(editDiffs("edit", { edits: [] })).toBeUndefined();
    expect(editDiffs("edit", { path: "a", edits: [{ oldText: 1 }] })).toBeUndefined();
    expect(editDiffs("bash", { path: "a" })).toBeUndefined();
  });
});
