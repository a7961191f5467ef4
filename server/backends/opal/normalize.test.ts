import { describe, expect, it } from "vitest";
import { TimelineEvent, type ToolBlock } from "@/lib/model";
import { diffFiles, structuredDiff } from "./diffs";
import { historyMessages, historyTodos } from "./history";
import { applyOpalEvent, beginTurn, opalUsage } from "./normalize";
import type { OpalTurn } from "./turn-state";
import { completeTaskSnapshot, tasksTodos, unquoteElixir } from "./tool-results";

const SID = "s1";
function run(events: Record<string, unknown>[]) {
  const { turn, events: first } = beginTurn(SID, "m1", 1000, { parentId: "u1" });
  const out = [...first];
  const extra: ReturnType<typeof applyOpalEvent>[] = [];
  events.forEach((e, i) => {
    const r = applyOpalEvent(turn, { session_id: "opal", ...e }, 1001 + i);
    out.push(...r.events);
    extra.push(r);
  });
  for (const e of out) expect(TimelineEvent.safeParse(e).success, JSON.stringify(e)).toBe(true);
  return { turn, out, extra };
}
const blocks = (out: TimelineEvent[]) => {
  const m = new Map<string, { kind: string; text?: string } & Record<string, unknown>>();
  for (const e of out) {
    if (e.type === "block.updated") m.set(e.block.id, { ...e.block });
    if (e.type === "block.delta") {
      const b = m.get(e.blockId)!;
      b[e.field] = String(b[e.field] ?? "") + e.delta;
    }
  }
  return [...m.values()];
};

describe("Opal agent/event → timeline", () => {
  it("thinking without an end event closes at message_start; text streams; turn_end keeps the final text", () => {
    const { out } = run([
      { type: "agent_start" },
      { type: "thinking_start" },
      { type: "thinking_delta", delta: "Let me " },
      { type: "thinking_delta", delta: "think." },
      { type: "message_start" },
      { type: "message_delta", delta: "Hel" },
      { type: "message_delta", delta: "lo" },
      { type: "turn_end", message: "Hello" },
    ]);
    const bs = blocks(out);
    expect(bs.map((b) => [b.kind, b.text])).toEqual([
      ["reasoning", "Let me think."],
      ["text", "Hello"],
    ]);
    expect(bs[0]!.endedAt).toBe(1005);
    expect(out.filter((e) => e.type === "block.delta" && e.field === "text")).toHaveLength(4);
  });

  it("a thinking block is also closed by a tool start; tool output streams; result.meta.diff is the edit's diff", () => {
    const diff = "--- a/x.txt\n+++ b/x.txt\n@@ -1,1 +1,1 @@\n-old\n+new";
    const { out } = run([
      { type: "thinking_start" },
      { type: "thinking_delta", delta: "edit it" },
      {
        type: "tool_execution_start",
        tool: "bash",
        call_id: "c1",
        args: { command: "echo hi" },
        meta: "Run `echo hi`",
      },
      { type: "tool_output", tool: "bash", call_id: "c1", chunk: "hi\n" },
      { type: "tool_execution_end", tool: "bash", call_id: "c1", result: { ok: true, output: "hi\n" } },
      { type: "tool_execution_start", tool: "edit_file", call_id: "c2", args: { path: "x.txt" }, meta: "edit x.txt" },
      {
        type: "tool_execution_end",
        tool: "edit_file",
        call_id: "c2",
        result: { ok: true, output: "Edited x.txt", meta: { diff } },
      },
      { type: "tool_execution_start", tool: "read_file", call_id: "", args: { path: "nope" }, meta: "read nope" },
      { type: "tool_execution_end", tool: "read_file", call_id: "", result: { ok: false, error: "{:error, :enoent}" } },
    ]);
    const bs = blocks(out);
    expect(bs[0]).toMatchObject({ kind: "reasoning", text: "edit it", endedAt: 1003 });
    const tools = bs.filter((b) => b.kind === "tool") as unknown as ToolBlock[];
    expect(tools[0]).toMatchObject({
      tool: "bash",
      status: "completed",
      output: "hi\n",
      title: "Run `echo hi`",
      input: { command: "echo hi" },
    });
    expect(tools[1]).toMatchObject({
      tool: "edit",
      status: "completed",
      diff: [{ path: "x.txt", additions: 1, deletions: 1, status: "modified", patch: diff }],
    });
    expect(tools[2]).toMatchObject({ tool: "read", status: "error", error: "{:error, :enoent}" });
    expect(out.filter((e) => e.type === "block.delta" && e.field === "output")).toHaveLength(1);
  });

  it("usage_update and agent_end usage carry the context; agent_end ends the run", () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
      context_window: 128000,
      current_context_tokens: 120,
    };
    const { out, extra, turn } = run([
      { type: "usage_update", usage },
      { type: "agent_end", usage },
    ]);
    expect(out.filter((e) => e.type === "usage.updated")[0]).toEqual({
      type: "usage.updated",
      usage: { inputTokens: 100, outputTokens: 20, contextTokens: 120, contextWindow: 128000 },
    });
    expect(extra.at(-1)!.ended).toBe("done");
    expect(turn.info).toMatchObject({ completedAt: expect.any(Number), usage: { inputTokens: 100 } });
    expect(opalUsage({})).toBeUndefined();
  });

  it("agent_abort marks the message stopped and cancels running tools", () => {
    const { out, extra } = run([
      { type: "tool_execution_start", tool: "bash", call_id: "c1", args: {} },
      { type: "agent_abort" },
    ]);
    expect(extra.at(-1)!.ended).toBe("aborted");
    expect(blocks(out).find((b) => b.kind === "tool")).toMatchObject({ status: "cancelled" });
    const last = out.filter((e) => e.type === "message.updated").at(-1);
    expect(last).toMatchObject({ message: { error: { aborted: true } } });
  });

  it("status_update is a live status; unknown {raw} are notices, request boundaries nothing, a stall a status; queued prompts are reported", () => {
    const { out, extra } = run([
      { type: "status_update", message: "Reading files" },
      { type: "unknown", raw: "{:retry, 1, 2000, :timeout}" },
      { type: "unknown", raw: "{:compaction_start, 42}" },
      { type: "unknown", raw: '{:request_start, %{messages: 3, model: "gpt-5"}}' },
      { type: "unknown", raw: "{:request_end}" },
      { type: "unknown", raw: "{:stream_stalled, 10}" },
      { type: "message_queued", text: "later" },
      { type: "brand_new_event" },
      { type: "unknown", raw: '{:title_generated, "Fix the \\"parser\\""}' },
    ]);
    expect(extra[8]!.title).toBe('Fix the "parser"');
    expect(extra[8]!.events).toEqual([]);
    expect(extra[0]!.status).toBe("Reading files");
    expect(extra[3]!.events).toEqual([]);
    expect(extra[4]!.events).toEqual([]);
    expect(extra[5]).toEqual({ events: [], status: "Waiting for the model (nothing for 10 s)" });
    expect(extra[6]!.queued).toEqual({ text: "later", applied: false });
    expect(blocks(out).map((b) => [b.level, b.code, b.text])).toEqual([
      ["warn", "retry", "Opal is retrying the model request: {:retry, 1, 2000, :timeout}"],
      ["info", "compaction", "Opal is compacting the conversation: {:compaction_start, 42}"],
      ["info", undefined, "Opal sent an event this console does not know: brand_new_event"],
    ]);
  });

  it("agent_recovered ends the run failed: the restarted agent is idle and sends no agent_end", () => {
    const { out, extra } = run([
      { type: "message_start" },
      { type: "message_delta", delta: "Half" },
      { type: "tool_execution_start", tool: "bash", call_id: "c1", args: {} },
      { type: "agent_recovered" },
    ]);
    expect(extra[3]!.ended).toBe("error");
    expect(blocks(out).find((b) => b.kind === "tool")).toMatchObject({ status: "cancelled" });
    expect(
      blocks(out)
        .filter((b) => b.kind === "notice")
        .map((b) => b.level),
    ).toEqual(["warn"]);
    expect(out.filter((e) => e.type === "message.updated").at(-1)).toMatchObject({
      message: { completedAt: expect.any(Number), error: { name: "OpalRecovered" } },
    });
  });

  it("error {reason} ends the run failed (Opal goes idle without agent_end), the reason unquoted", () => {
    const { out, extra } = run([
      { type: "message_start" },
      { type: "message_delta", delta: "Half" },
      { type: "error", reason: '%{"code" => nil, "message" => "upstream exploded", "type" => "server_error"}' },
    ]);
    expect(extra[2]!.ended).toBe("error");
    expect(out.filter((e) => e.type === "message.updated").at(-1)).toMatchObject({
      message: {
        completedAt: expect.any(Number),
        error: {
          name: "OpalError",
          message:
            'Opal reported an error: %{"code" => nil, "message" => "upstream exploded", "type" => "server_error"}',
        },
      },
    });
    const quoted = run([{ type: "error", reason: '"rate limited\\nretry later"' }]);
    expect(quoted.out.filter((e) => e.type === "message.updated").at(-1)).toMatchObject({
      message: { error: { message: "Opal reported an error: rate limited\nretry later" } },
    });
  });

  it("Opal's structured diff (diff.ex) is the edit's diff with a unified patch; a write of a new file is added", () => {
    const diff = {
      path: "src/a.txt",
      lines_removed: 1,
      lines_added: 2,
      hunks: [
        {
          old_start: 1,
          new_start: 1,
          lines: [
            { op: "eq", old_no: 1, new_no: 1, text: "one" },
            { op: "del", old_no: 2, text: "two" },
            { op: "ins", new_no: 2, text: "TWO" },
            { op: "ins", new_no: 3, text: "three" },
          ],
        },
      ],
    };
    const { out, extra } = run([
      {
        type: "tool_execution_start",
        tool: "edit_file",
        call_id: "e1",
        args: { path: "src/a.txt", start: "2:ab" },
        meta: "Edit src/a.txt",
      },
      {
        type: "tool_execution_end",
        tool: "edit_file",
        call_id: "e1",
        result: { ok: true, output: "Edit applied", meta: { diff } },
      },
    ]);
    const tool = blocks(out)
      .filter((b) => b.kind === "tool")
      .at(-1) as unknown as ToolBlock;
    expect(tool.diff).toEqual([
      {
        path: "src/a.txt",
        status: "modified",
        additions: 2,
        deletions: 1,
        patch: "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,3 @@\n one\n-two\n+TWO\n+three\n",
      },
    ]);
    expect(extra[1]!.toolEnded).toEqual({ callId: "e1", tool: "edit_file", ok: true });
    const made = structuredDiff(
      {
        path: "n.txt",
        lines_added: 1,
        lines_removed: 1,
        hunks: [
          {
            old_start: 1,
            new_start: 1,
            lines: [
              { op: "del", old_no: 1, text: "" },
              { op: "ins", new_no: 1, text: "x" },
            ],
          },
        ],
      },
      undefined,
      true,
    );
    expect(made).toMatchObject({ status: "modified" });
    const fresh = structuredDiff(
      {
        path: "n.txt",
        lines_added: 1,
        lines_removed: 0,
        hunks: [{ old_start: 1, new_start: 1, lines: [{ op: "ins", new_no: 1, text: "x" }] }],
      },
      undefined,
      true,
    );
    expect(fresh).toMatchObject({ status: "added", patch: "--- /dev/null\n+++ b/n.txt\n@@ -1,0 +1,1 @@\n+x\n" });
  });

  it("tool errors arrive Elixir-quoted (inspect/1) and are shown as text", () => {
    expect(unquoteElixir('"Command exited with status 2\\nno such file \\"x\\" \\#{y}"')).toBe(
      'Command exited with status 2\nno such file "x" #{y}',
    );
    expect(unquoteElixir("{:error, :enoent}")).toBe("{:error, :enoent}");
    expect(unquoteElixir('"a" <> "b"')).toBe('"a" <> "b"');
    const { out } = run([
      { type: "tool_execution_start", tool: "bash", call_id: "b1", args: { command: "false" } },
      {
        type: "tool_execution_end",
        tool: "bash",
        call_id: "b1",
        result: { ok: false, error: '"Command exited with status 1\\n"' },
      },
    ]);
    expect(
      blocks(out)
        .filter((b) => b.kind === "tool")
        .at(-1),
    ).toMatchObject({ status: "error", error: "Command exited with status 1\n" });
  });

  it("a tasks list filtered by a view is a subset: it does not replace the plan", () => {
    const output = {
      kind: "tasks",
      action: "list",
      tasks: [{ id: 2, label: "Migrate", status: "open" }],
      total: 1,
      counts: { open: 1 },
      changes: [],
      notes: [],
    };
    const { out } = run([
      { type: "tool_execution_start", tool: "tasks", call_id: "t1", args: { action: "list", view: "open" } },
      { type: "tool_execution_end", tool: "tasks", call_id: "t1", result: { ok: true, output } },
      { type: "tool_execution_start", tool: "tasks", call_id: "t2", args: { action: "list" } },
      { type: "tool_execution_end", tool: "tasks", call_id: "t2", result: { ok: true, output } },
    ]);
    expect(out.filter((e) => e.type === "todo.updated")).toEqual([
      { type: "todo.updated", todos: [{ content: "Migrate", status: "pending" }] },
    ]);
    expect(completeTaskSnapshot({ action: "list", status: "done" }, { action: "list" })).toBe(false);
    expect(completeTaskSnapshot({ action: "update", id: 1 }, { action: "update" })).toBe(true);
  });

  it("tasks results become the plan; sub-agent events are handed back for the child", () => {
    const output = {
      kind: "tasks",
      action: "insert",
      tasks: [
        { id: "1", label: "Write schema", status: "open" },
        { id: "2", label: "Migrate", status: "in_progress" },
      ],
      total: 2,
      counts: { open: 1, in_progress: 1, done: 0, blocked: 0 },
      changes: ["created #1"],
      notes: [],
    };
    const { out, extra } = run([
      { type: "tool_execution_start", tool: "tasks", call_id: "t1", args: { action: "insert" } },
      { type: "tool_execution_end", tool: "tasks", call_id: "t1", result: { ok: true, output } },
      {
        type: "sub_agent_event",
        parent_call_id: "c9",
        sub_session_id: "sub1",
        inner: { type: "message_delta", delta: "x" },
      },
      { type: "sub_agent_event", parent_call_id: "c9", sub_session_id: "sub1", inner: "garbage" },
    ]);
    expect(out.find((e) => e.type === "todo.updated")).toEqual({
      type: "todo.updated",
      todos: [
        { content: "Write schema", status: "pending" },
        { content: "Migrate", status: "in_progress" },
      ],
    });
    expect(blocks(out).find((b) => b.kind === "tool")!.output).toContain("2 task(s)");
    expect(extra[2]!.sub).toEqual({
      parentCallId: "c9",
      subSessionId: "sub1",
      inner: { type: "message_delta", delta: "x" },
    });
    expect(extra[3]!.sub).toBeUndefined();
    expect(tasksTodos([{ id: "3", label: "", status: "done" }])).toEqual([{ content: "3", status: "completed" }]);
  });

  it("never throws on malformed events", () => {
    const turn: OpalTurn = beginTurn(SID, "m", 0).turn;
    for (const e of [
      null,
      1,
      "x",
      [],
      { type: 3 },
      { type: "tool_output" },
      { type: "tool_execution_end", result: 5 },
      { type: "usage_update", usage: "x" },
    ])
      expect(() => applyOpalEvent(turn, e, 1)).not.toThrow();
  });
});

describe("session/history → messages", () => {
  const hist = [
    { id: "a1", role: "system", content: "sys", is_error: false },
    { id: "u1", role: "user", content: "run it", is_error: false },
    {
      id: "a2",
      role: "assistant",
      content: "Running.",
      thinking: "hmm",
      is_error: false,
      tool_calls: [{ call_id: "c1", name: "bash", arguments: { command: "ls" } }],
    },
    { id: "r1", role: "tool_result", call_id: "c1", name: "bash", content: "file\n", is_error: false },
    {
      id: "a3",
      role: "assistant",
      content: "",
      is_error: false,
      tool_calls: [{ call_id: "c2", name: "tasks", arguments: { action: "insert" } }],
    },
    {
      id: "r2",
      role: "tool_result",
      call_id: "c2",
      name: "tasks",
      content: JSON.stringify({
        kind: "tasks",
        action: "insert",
        tasks: [{ id: "1", label: "A", status: "open" }],
        total: 1,
        counts: { open: 1 },
      }),
      is_error: false,
    },
    { id: "a4", role: "assistant", content: "Done.", is_error: false },
    {
      id: "u2",
      role: "user",
      content: "[Conversation summary]\nearlier",
      is_error: false,
      metadata: { type: "compaction" },
    },
  ];
  it("one assistant message per run with tool results folded in; summaries marked", () => {
    const ms = historyMessages(SID, hist, 5);
    expect(ms.map((m) => [m.id, m.role, m.summary ?? false])).toEqual([
      ["u1", "user", false],
      ["a2", "assistant", false],
      ["u2", "assistant", true],
    ]);
    expect(ms[1]!.parentId).toBe("u1");
    expect(ms.map((m) => m.createdAt)).toEqual([...ms.map((m) => m.createdAt)].sort((a, b) => a - b));
    expect(new Set(ms.map((m) => m.createdAt)).size).toBe(3);
    expect(ms[1]!.blocks.map((b) => b.kind)).toEqual(["reasoning", "text", "tool", "tool", "text"]);
    expect(ms[1]!.blocks[2]).toMatchObject({ tool: "bash", output: "file\n", status: "completed" });
    expect(historyTodos(hist)).toEqual([{ content: "A", status: "pending" }]);
    expect(historyMessages(SID, "nope", 1)).toEqual([]);
  });
  it("diffFiles counts lines per file", () => {
    expect(diffFiles("@@ -1 +1 @@\n-a\n+b\n+c", "f.ts")).toMatchObject([{ path: "f.ts", additions: 2, deletions: 1 }]);
  });
});
