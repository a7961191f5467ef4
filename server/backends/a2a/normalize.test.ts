import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  TimelineEvent as TimelineEventSchema,
  type Message,
  type Session,
  type TimelineEvent,
  type ToolBlock,
} from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { fixtureLines } from "../../../testkit/adapter-harness";
import { adoptListedIds, historyMessages, historyWindow, listedSession, mergeHistory, recoveredAsk } from "./listings";
import { toFrame } from "./frames";
import {
  applyFrame,
  beginTurn,
  endTurn,
  failTurn,
  newSessionNorm,
  taskState,
  toInterrupt,
  type FrameResult,
  type SessionNorm,
} from "./normalize";

const dir = path.join(import.meta.dirname, "fixtures");

/** The `result` of every JSON-RPC stream item of a fixture (frames as in docs/backends/a2a.md). */
function frames(file: string): unknown[] {
  return fixtureLines(dir, file).map((l) => (JSON.parse(l) as { result: unknown }).result);
}

const session: Session = { id: "s1", backendId: "b", title: "t", createdAt: 1, updatedAt: 1, status: "idle" };

function start(profile: "generic" | "opencode"): { n: SessionNorm; events: TimelineEvent[] } {
  const n = newSessionNorm("s1", profile);
  const events = beginTurn(n, {
    userMessageId: "u_1",
    assistantId: "a1",
    parts: [{ type: "text", text: "run it" }],
    now: 1000,
  });
  return { n, events };
}

function run(n: SessionNorm, fs: unknown[], events: TimelineEvent[]): FrameResult[] {
  return fs.map((f, i) => {
    const r = applyFrame(n, f, 1001 + i);
    events.push(...r.events);
    if (r.end) events.push(...endTurn(n, r.end, 2000 + i));
    return r;
  });
}

const textOf = (st: SessionState) =>
  st.messages
    .filter((m) => m.role === "assistant")
    .flatMap((m) => m.blocks.map((b) => (b.kind === "text" ? b.text : "")))
    .join("");

const stateOf = (events: TimelineEvent[]): SessionState => applyAll({ ...emptyState, session }, events);

function expectCanonical(events: TimelineEvent[]) {
  for (const e of events) expect(TimelineEventSchema.safeParse(e).success, JSON.stringify(e)).toBe(true);
}

describe("opencode-a2a profile", () => {
  it("groups chunks by message_id and block_type: reasoning and text deltas, tool snapshots that replace, a final snapshot", () => {
    const { n, events } = start("opencode");
    const results = run(n, frames("opencode-a2a-stream.jsonl"), events);
    expectCanonical(events);
    const state = stateOf(events);
    expect(state.messages.map((m) => [m.id, m.role])).toEqual([
      ["u_1", "user"],
      ["msg_1", "assistant"],
      ["msg_2", "assistant"],
    ]);
    const [, m1, m2] = state.messages;
    expect(m1!.blocks.map((b) => b.kind)).toEqual(["reasoning", "text", "tool"]);
    expect(m1!.blocks[0]).toMatchObject({ kind: "reasoning", text: "Let me think." });
    expect(m1!.blocks[1]).toMatchObject({ kind: "text", text: "Hello, running it." });
    const tool = m1!.blocks[2] as ToolBlock;
    expect(tool).toMatchObject({
      callId: "call_1",
      tool: "bash",
      status: "completed",
      output: "hi\n",
      title: "echo hi",
      input: { command: "echo hi" },
    });
    // deltas, not whole-text updates, while streaming
    expect(events.filter((e) => e.type === "block.delta").length).toBeGreaterThanOrEqual(2);
    // the final snapshot replaced the streamed text
    expect(m2!.blocks).toEqual([{ id: "msg_2:text", kind: "text", text: "Done: the command printed hi." }]);
    // usage on the last message, completion on both
    expect(m2!.usage).toEqual({
      inputTokens: 2450,
      outputTokens: 16,
      reasoningTokens: 4,
      cacheReadTokens: 100,
      costUsd: 0,
      contextTokens: 2466,
    });
    expect(m1!.completedAt).toBeDefined();
    expect(m2!.error).toBeUndefined();
    // interrupts asked and resolved, the binding learned
    expect(results.flatMap((r) => r.asked)).toEqual([
      {
        kind: "permission",
        requestId: "per_1",
        permission: "bash",
        patterns: ["echo hi"],
        details: { permission: "bash", patterns: ["echo hi"] },
      },
    ]);
    expect(results.flatMap((r) => r.resolved)).toEqual([{ requestId: "per_1", resolution: "replied" }]);
    expect(results.at(-1)!.binding).toEqual({ sessionId: "ses_1", title: "Say hi" });
    expect(results.at(-1)!.end).toEqual({ state: "completed" });
    // an input-required status with an interrupt does not pause the opencode turn
    expect(results[8]!.end).toBeUndefined();
  });

  it("drops chunks it already applied (a replay after a reconnect duplicates nothing)", () => {
    const { n, events } = start("opencode");
    const all = frames("opencode-a2a-stream.jsonl");
    run(n, all.slice(0, 7), events);
    run(n, all.slice(2, 7), events);
    const m1 = stateOf(events).messages[1]!;
    expect(m1.blocks[1]).toMatchObject({ text: "Hello, running it." });
    expect(m1.blocks[0]).toMatchObject({ text: "Let me think." });
  });

  it("fails the turn with the error artifact and error.data type", () => {
    const { n, events } = start("opencode");
    const results = run(n, frames("opencode-a2a-failure.jsonl"), events);
    expectCanonical(events);
    const last = stateOf(events).messages.at(-1)!;
    expect(last.error).toEqual({
      name: "UPSTREAM_EXECUTION_ERROR",
      message: "OpenCode execution failed: model returned 400 invalid_request_error",
    });
    expect(results.at(-1)!.end?.state).toBe("failed");
    // said once, on the reply
    expect(events.some((e) => e.type === "error")).toBe(false);
  });

  it("makes permission and question interrupts from asks", () => {
    const { n } = start("opencode");
    run(n, frames("opencode-a2a-stream.jsonl").slice(0, 8), []);
    const perm = toInterrupt(
      n,
      { kind: "permission", requestId: "per_1", permission: "bash", patterns: ["echo hi"], details: {} },
      "i1",
      5,
    );
    expect(perm).toMatchObject({
      kind: "permission",
      toolCallId: "call_1",
      messageId: "msg_1",
      permission: { action: "bash", patterns: ["echo hi"] },
    });
    expect(perm.permission!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject"]);
    const q = recoveredAsk({
      request_id: "que_1",
      session_id: "ses_1",
      interrupt_type: "question",
      task_id: "t1",
      context_id: "c1",
      details: {
        questions: [
          { header: "Color", question: "Which?", options: [{ label: "red", description: "warm" }, { value: "blue" }] },
        ],
      },
      expires_at: 1_900_000_000,
    });
    expect(q).toMatchObject({ sessionId: "ses_1", taskId: "t1", expiresAt: 1_900_000_000_000 });
    expect(toInterrupt(n, q!.ask, "i2", 5)).toMatchObject({
      kind: "question",
      questions: [
        { header: "Color", question: "Which?", options: [{ label: "red", description: "warm" }, { label: "blue" }] },
      ],
    });
    expect(recoveredAsk({ request_id: "x" })).toBeUndefined();
  });

  it("maps listings: sessions, history pages, and merges what the console saw live", () => {
    expect(
      listedSession(
        {
          id: "ses_1",
          contextId: "ctx:opencode-session:ses_1",
          status: { state: "completed" },
          metadata: { shared: { session: { id: "ses_1", title: "Fix it" } } },
        },
        "b",
        7,
      ),
    ).toEqual({ id: "ses_1", backendId: "b", title: "Fix it", createdAt: 0, updatedAt: 0, status: "idle" });
    // a time the agent gives is used
    expect(
      listedSession(
        {
          id: "ses_2",
          status: { state: "completed", timestamp: "2026-01-02T03:04:05Z" },
          metadata: { shared: { session: { id: "ses_2" } } },
        },
        "b",
        7,
      )?.updatedAt,
    ).toBe(Date.parse("2026-01-02T03:04:05Z"));
    const history = historyMessages(
      [
        {
          kind: "message",
          messageId: "msg_0",
          role: "user",
          parts: [{ kind: "text", text: "run it" }],
          contextId: "ctx:opencode-session:ses_1",
        },
        { kind: "message", messageId: "msg_1", role: "agent", parts: [{ kind: "text", text: "Hello, running it." }] },
        { kind: "message", messageId: "msg_x", role: "agent", parts: [{ kind: "text", text: "" }] },
        {
          kind: "message",
          messageId: "msg_2",
          role: "agent",
          parts: [{ kind: "text", text: "Done: the command printed hi. And more." }],
        },
        { nonsense: true },
      ],
      "s1",
      100,
    );
    expect(history.map((m) => [m.id, m.role, m.blocks.length])).toEqual([
      ["msg_0", "user", 1],
      ["msg_1", "assistant", 1],
      ["msg_x", "assistant", 0],
      ["msg_2", "assistant", 1],
    ]);
    const { n, events } = start("opencode");
    run(n, frames("opencode-a2a-stream.jsonl"), events);
    const live = stateOf(events).messages;
    const merged = mergeHistory(history, live);
    // an empty listed message the console did not see is left out
    expect(merged.map((m) => m.id)).toEqual(["msg_0", "msg_1", "msg_2"]);
    // the live message with its tool call is kept; the listing's newer text wins
    expect(merged[1]!.blocks.map((b) => b.kind)).toEqual(["reasoning", "text", "tool"]);
    expect(merged[2]!.blocks).toEqual([
      { id: "msg_2:text", kind: "text", text: "Done: the command printed hi. And more." },
    ]);
    expect(merged.map((m) => m.createdAt)).toEqual([...merged.map((m) => m.createdAt)].sort((a, b) => a - b));
    expect(new Set(merged.map((m) => m.createdAt)).size).toBe(3);
    // the prompt shown as u1 takes the listed id msg_0: a reload shows it once
    const window = historyWindow(history, live);
    expect(window.map((m) => m.id)).toEqual(["msg_0", "msg_1", "msg_2"]);
    expect(window[0]!.blocks).toEqual([{ id: "msg_0:text", kind: "text", text: "run it" }]);
    expect(window[1]!.parentId).toBe("msg_0");
    expect(adoptListedIds(history, live).filter((m) => m.id === "u_1")).toEqual([]);
  });

  it("keeps a turn the listing does not hold yet after the listed window", () => {
    const { n, events } = start("opencode");
    run(n, frames("opencode-a2a-stream.jsonl").slice(0, 6), events);
    const live = stateOf(events).messages;
    const window = historyWindow([], live);
    expect(window.map((m) => m.id)).toEqual(["u_1", "msg_1"]);
  });

  it("keeps a live tool step the listing leaves out (it lists only text), in time order", () => {
    const t = (id: string, role: "user" | "assistant", at: number, blocks: Message["blocks"]): Message => ({
      id,
      sessionId: "s",
      role,
      createdAt: at,
      blocks,
    });
    const live = [
      t("u_1", "user", 100, [{ id: "u_1:0", kind: "text", text: "run it" }]),
      t("msg_tool", "assistant", 200, [
        {
          id: "tool:c1",
          kind: "tool",
          callId: "c1",
          tool: "bash",
          rawTool: "bash",
          status: "completed",
          input: {},
          output: "hi",
        },
      ]),
      t("msg_2", "assistant", 300, [{ id: "msg_2:text", kind: "text", text: "Done." }]),
    ];
    const listed = [
      t("msg_0", "user", 1, [{ id: "msg_0:text", kind: "text", text: "run it" }]),
      t("msg_2", "assistant", 2, [{ id: "msg_2:text", kind: "text", text: "Done." }]),
    ];
    const window = historyWindow(listed, live);
    expect(window.map((m) => m.id)).toEqual(["msg_0", "msg_tool", "msg_2"]);
    expect(window[1]!.blocks[0]).toMatchObject({ kind: "tool", status: "completed" });
  });
});

describe("generic A2A", () => {
  it("appends and replaces artifacts, shows status messages, data as text and files as safe links", () => {
    const { n, events } = start("generic");
    const results = run(n, frames("plain-a2a-stream.jsonl"), events);
    expectCanonical(events);
    const state = stateOf(events);
    expect(results[0]!.taskId).toBe("task-9");
    expect(results[0]!.contextId).toBe("ctx-9");
    const a = state.messages.at(-1)!;
    expect(a.id).toBe("a1");
    expect(a.blocks.map((b) => b.kind)).toEqual(["text", "text", "notice", "file", "notice"]);
    expect(a.blocks[0]).toMatchObject({ text: "Reading the notes…" });
    expect(a.blocks[1]).toMatchObject({ text: "The notes say three things." });
    expect(a.blocks[2]).toMatchObject({ kind: "notice", text: expect.stringContaining('"<b>b</b>"') });
    expect(a.blocks[3]).toMatchObject({
      kind: "file",
      name: "notes.txt",
      url: "https://agent.example/files/notes.txt",
    });
    expect(a.blocks[4]).toMatchObject({ kind: "notice", text: expect.stringContaining("cannot be shown") });
    expect(JSON.stringify(state)).not.toContain("javascript:");
    expect(a.completedAt).toBeDefined();
    expect(results.at(-1)!.end).toEqual({ state: "completed" });
  });

  it("replaces an artifact sent again without append", () => {
    const { n, events } = start("generic");
    const chunk = (text: string, append?: boolean) => ({
      kind: "artifact-update",
      taskId: "t",
      contextId: "c",
      ...(append === undefined ? {} : { append }),
      artifact: { artifactId: "x", parts: [{ kind: "text", text }] },
    });
    run(n, [chunk("draft one"), chunk(" more", true), chunk("final answer", false)], events);
    expect(stateOf(events).messages.at(-1)!.blocks).toEqual([{ id: "art:x:0", kind: "text", text: "final answer" }]);
  });

  it("pauses on input-required with the agent's question as an input interrupt, and goes on with the answer", () => {
    const { n, events } = start("generic");
    const ask = {
      kind: "status-update",
      taskId: "t7",
      contextId: "c7",
      final: true,
      status: {
        state: "input-required",
        message: { kind: "message", role: "agent", messageId: "q1", parts: [{ kind: "text", text: "Which file?" }] },
      },
    };
    const [r] = run(n, [ask], events);
    expect(r!.end).toEqual({ state: "input-required", message: "Which file?" });
    expect(r!.asked).toEqual([{ kind: "input", taskId: "t7", prompt: "Which file?", auth: false }]);
    const it = toInterrupt(n, r!.asked[0]!, "i1", 3);
    expect(it).toMatchObject({ kind: "input", input: { prompt: "Which file?" } });
    expect(n.turn!.done).toBe(false);
    // the answer is a new user message on the same task
    events.push(
      ...beginTurn(n, {
        userMessageId: "u2",
        assistantId: "a2",
        parts: [{ type: "text", text: "notes.txt" }],
        now: 3000,
      }),
    );
    expect(n.turn!.taskId).toBe("t7");
    run(
      n,
      [
        {
          kind: "status-update",
          taskId: "t7",
          contextId: "c7",
          final: true,
          status: {
            state: "completed",
            message: {
              kind: "message",
              role: "agent",
              messageId: "r1",
              parts: [{ kind: "text", text: "Read notes.txt." }],
            },
          },
        },
      ],
      events,
    );
    const state = stateOf(events);
    expect(state.messages.map((m) => m.id)).toEqual(["u_1", "a1", "u2", "a2"]);
    expect(state.messages[1]!.blocks[0]).toMatchObject({ text: "Which file?" });
    expect(state.messages[3]!.blocks[0]).toMatchObject({ text: "Read notes.txt." });
    // auth-required is a sensitive input interrupt
    const { n: n2 } = start("generic");
    const r2 = applyFrame(
      n2,
      { kind: "status-update", taskId: "t8", final: true, status: { state: "auth-required" } },
      5,
    );
    expect(toInterrupt(n2, r2.asked[0]!, "i9", 5)).toMatchObject({ kind: "input", input: { sensitive: true } });
  });

  it("fails a failed or rejected task with the agent's message, and a canceled one as stopped", () => {
    for (const [state, name] of [
      ["failed", "TaskFailed"],
      ["rejected", "TaskRejected"],
    ] as const) {
      const { n, events } = start("generic");
      run(
        n,
        [
          {
            kind: "status-update",
            taskId: "t",
            final: true,
            status: {
              state,
              message: {
                kind: "message",
                role: "agent",
                messageId: "e",
                parts: [{ kind: "text", text: "Out of quota." }],
              },
            },
          },
        ],
        events,
      );
      const last = stateOf(events).messages.at(-1)!;
      expect(last.error).toEqual({ name, message: "Out of quota." });
      expect(stateOf(events).lastError).toBeUndefined(); // said once, on the reply
    }
    const { n, events } = start("generic");
    run(n, [{ kind: "status-update", taskId: "t", final: true, status: { state: "canceled" } }], events);
    expect(stateOf(events).messages.at(-1)!.error).toMatchObject({ aborted: true });
  });

  it("takes a whole task (message/send, tasks/get) and a message reply", () => {
    const { n, events } = start("generic");
    const task = {
      kind: "task",
      id: "t",
      contextId: "c",
      status: {
        state: "completed",
        message: { kind: "message", role: "agent", messageId: "m", parts: [{ kind: "text", text: "All done." }] },
      },
      artifacts: [{ artifactId: "r", name: "response", parts: [{ kind: "text", text: "Full answer." }] }],
    };
    const [r] = run(n, [task], events);
    expect(r!.end?.state).toBe("completed");
    expect(
      stateOf(events)
        .messages.at(-1)!
        .blocks.map((b) => (b.kind === "text" ? b.text : b.kind)),
    ).toEqual(["Full answer.", "All done."]);
    const { n: n2, events: e2 } = start("generic");
    const [r2] = run(
      n2,
      [{ kind: "message", role: "agent", messageId: "m9", parts: [{ kind: "text", text: "Hi there." }] }],
      e2,
    );
    expect(r2!.end?.state).toBe("completed");
    expect(stateOf(e2).messages.at(-1)!.blocks[0]).toMatchObject({ text: "Hi there." });
  });

  it("ignores frames of another task, malformed frames and unknown kinds without throwing", () => {
    const { n, events } = start("generic");
    run(n, [{ kind: "status-update", taskId: "t1", status: { state: "working" } }], events);
    for (const bad of [
      null,
      7,
      "x",
      [],
      {},
      { kind: "artifact-update" },
      { kind: "artifact-update", taskId: "t1", artifact: { parts: "no" } },
      { kind: "status-update", taskId: "t1", status: null },
      { kind: "status-update", taskId: "other", final: true, status: { state: "failed" } },
      { kind: "weird" },
    ]) {
      expect(() => run(n, [bad], events)).not.toThrow();
    }
    expect(n.turn!.done).toBe(false);
    expectCanonical(events);
    expect(taskState("TASK_STATE_CANCELLED")).toBe("canceled");
    expect(taskState("nonsense")).toBe("unknown");
  });

  it("fails a running turn for the console's reasons (a lost task)", () => {
    const { n, events } = start("generic");
    events.push(...failTurn(n, { name: "TaskLost", message: "The agent restarted." }, 9));
    expect(stateOf(events).messages.at(-1)!.error).toEqual({ name: "TaskLost", message: "The agent restarted." });
    expect(failTurn(n, { name: "x", message: "y" }, 10)).toEqual([]);
  });
});

describe("A2A 1.0 frames and the corrections of issue 26", () => {
  it("a streamed Task is a snapshot: a resumed task's `input-required` snapshot does not end the turn, its status updates do", () => {
    const { n, events } = start("generic");
    const snapshot = toFrame({
      payload: {
        $case: "task",
        value: { id: "t1", contextId: "c1", status: { state: 6 }, artifacts: [], history: [] },
      },
    });
    const r1 = applyFrame(n, snapshot, 1001, { snapshotEnds: false });
    expect(r1.end).toBeUndefined();
    expect(r1.asked).toEqual([]);
    const working = toFrame({
      payload: { $case: "statusUpdate", value: { taskId: "t1", contextId: "c1", status: { state: 2 } } },
    });
    expect(applyFrame(n, working, 1002).end).toBeUndefined();
    const chunk = toFrame({
      payload: {
        $case: "artifactUpdate",
        value: {
          taskId: "t1",
          contextId: "c1",
          append: false,
          lastChunk: true,
          artifact: { artifactId: "a", parts: [{ content: { $case: "text", value: "The reply." } }] },
        },
      },
    });
    events.push(...applyFrame(n, chunk, 1003).events);
    const done = applyFrame(
      n,
      toFrame({ payload: { $case: "statusUpdate", value: { taskId: "t1", contextId: "c1", status: { state: 3 } } } }),
      1004,
    );
    expect(done.end?.state).toBe("completed");
    // polled, the same snapshot ends (pauses) the turn
    const { n: n2 } = start("generic");
    expect(applyFrame(n2, snapshot, 1001).end?.state).toBe("input-required");
    events.push(...endTurn(n, done.end!, 1005));
    expect(textOf(stateOf(events))).toContain("The reply.");
  });

  it("a failed task after an answered one shows the agent's message", () => {
    const { n, events } = start("generic");
    const failed = toFrame({
      payload: {
        $case: "statusUpdate",
        value: {
          taskId: "t2",
          contextId: "c1",
          status: {
            state: 4,
            message: {
              messageId: "m",
              role: 2,
              parts: [{ content: { $case: "text", value: "The model failed: overloaded" } }],
            },
          },
        },
      },
    });
    run(n, [failed], events);
    const st = stateOf(events);
    expect(st.messages.find((m) => m.role === "assistant")?.error?.message).toContain("The model failed: overloaded");
  });

  it("opencode-a2a: a provider auth failure ending `auth-required` is a failure that says so", () => {
    const { n, events } = start("opencode");
    const frames = [
      {
        kind: "artifact-update",
        taskId: "t",
        contextId: "c",
        artifact: {
          artifactId: "t:error",
          parts: [
            { kind: "text", text: "OpenCode rejected the request due to authentication failure (session.error)." },
          ],
        },
      },
      {
        kind: "status-update",
        taskId: "t",
        contextId: "c",
        status: { state: "auth-required" },
        final: true,
        metadata: { opencode: { error: { type: "UPSTREAM_UNAUTHORIZED" } } },
      },
    ];
    const rs = run(n, frames, events);
    expect(rs[1]!.end).toMatchObject({ state: "failed", errorType: "UPSTREAM_UNAUTHORIZED" });
    const err = stateOf(events).messages.find((m) => m.role === "assistant")?.error;
    expect(err).toMatchObject({ name: "UPSTREAM_UNAUTHORIZED" });
    expect(err?.message).toContain("authentication failure");
    expect(err?.message).not.toContain("lost");
  });

  it("opencode-a2a: usage is per model call, summed over the turn (a call's repeat replaces it)", () => {
    const { n } = start("opencode");
    const usage = (id: string, input: number, output: number) => ({
      kind: "status-update",
      taskId: "t",
      contextId: "c",
      status: { state: "working" },
      metadata: {
        shared: { usage: { input_tokens: input, output_tokens: output, cost: 0.5 }, stream: { message_id: id } },
      },
    });
    applyFrame(n, usage("m1", 100, 10), 1);
    applyFrame(n, usage("m2", 200, 20), 2);
    applyFrame(n, usage("m2", 210, 30), 3);
    expect(n.turn?.usage).toEqual({ inputTokens: 310, outputTokens: 40, costUsd: 1, contextTokens: 240 });
  });
});

describe("toFrame: A2A 1.0 values as frames", () => {
  it("maps states, roles and every part kind", () => {
    const f = toFrame({
      payload: {
        $case: "message",
        value: {
          messageId: "m",
          role: 2,
          parts: [
            { content: { $case: "text", value: "hi" } },
            { content: { $case: "data", value: { a: 1 } } },
            { content: { $case: "url", value: "https://x/y.txt" }, filename: "y.txt", mediaType: "text/plain" },
            { content: { $case: "raw", value: Buffer.from("abc") }, filename: "z", mediaType: "text/plain" },
          ],
        },
      },
    });
    expect(f).toMatchObject({
      kind: "message",
      role: "agent",
      parts: [
        { kind: "text", text: "hi" },
        { kind: "data", data: { a: 1 } },
        { kind: "file", file: { uri: "https://x/y.txt", name: "y.txt" } },
        { kind: "file", file: { bytes: Buffer.from("abc").toString("base64") } },
      ],
    });
    expect(toFrame({ id: "t", contextId: "c", status: { state: 8 } })).toMatchObject({
      kind: "task",
      status: { state: "auth-required" },
    });
    expect(toFrame({ payload: { $case: "statusUpdate", value: { taskId: "t", status: { state: 5 } } } })).toMatchObject(
      { kind: "status-update", final: true, status: { state: "canceled" } },
    );
    // a 0.3 frame passes through; garbage is an empty frame
    expect(toFrame({ kind: "message", parts: [] })).toEqual({ kind: "message", parts: [] });
    expect(toFrame(42)).toEqual({});
  });
});
