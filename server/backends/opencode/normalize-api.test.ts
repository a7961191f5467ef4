import { describe, expect, it } from "vitest";
import type { TimelineEvent } from "@/lib/model";
import { ApiEventMapper, type ApiEventResult } from "./api-events";
import { sumApiUsage, toApiMessage, toApiSession, type ApiSession } from "./normalize-api";

const S = "ses_de9841d0cffejga70o6MqGg4Zu";
const M = "msg_2167bfe68001c9hvndecFfVTFT";
const frame = (type: string, data: Record<string, unknown>, id = "evt_1") => ({
  id,
  type,
  data: { timestamp: 1000, sessionID: S, ...data },
});
const events = (r: ApiEventResult): TimelineEvent[] => (r.kind === "events" ? r.items.map((i) => i.event) : []);

describe("/api event frames", () => {
  it("maps a streamed reply: step, reasoning, text, end of the turn", () => {
    const m = new ApiEventMapper("b");
    expect(
      events(
        m.map(
          frame("session.next.step.started", {
            assistantMessageID: M,
            agent: "build",
            model: { id: "fake-model", providerID: "fake" },
          }),
        ),
      ),
    ).toEqual([
      { type: "session.status", status: "busy" },
      {
        type: "message.updated",
        message: {
          id: M,
          sessionId: S,
          role: "assistant",
          createdAt: 1000,
          model: { id: "fake-model", provider: "fake" },
          agent: "build",
        },
      },
    ]);
    expect(events(m.map(frame("session.next.text.started", { assistantMessageID: M, textID: "text-0" })))).toEqual([
      { type: "block.updated", messageId: M, block: { id: "text-0", kind: "text", text: "" } },
    ]);
    expect(
      events(m.map(frame("session.next.text.delta", { assistantMessageID: M, textID: "text-0", delta: "Hi" }))),
    ).toEqual([{ type: "block.delta", messageId: M, blockId: "text-0", field: "text", delta: "Hi" }]);
    const end = events(
      m.map(
        frame("session.next.step.ended", {
          assistantMessageID: M,
          finish: "stop",
          cost: 0,
          tokens: { input: 3, output: 4, reasoning: 0, cache: { read: 0, write: 0 } },
        }),
      ),
    );
    expect(end.at(-1)).toEqual({ type: "session.status", status: "idle" });
    expect(end[0]).toMatchObject({
      type: "message.updated",
      message: { completedAt: 1000, usage: { inputTokens: 3, outputTokens: 4 } },
    });
  });

  it("a step that ends in tool calls keeps the turn running", () => {
    const m = new ApiEventMapper("b");
    const out = events(
      m.map(
        frame("session.next.step.ended", {
          assistantMessageID: M,
          finish: "tool-calls",
          cost: 0,
          tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
        }),
      ),
    );
    expect(out.some((e) => e.type === "session.status")).toBe(false);
  });

  it("follows a tool call from its name to its output", () => {
    const m = new ApiEventMapper("b");
    m.map(frame("session.next.tool.input.started", { assistantMessageID: M, callID: "c1", name: "bash" }));
    const called = events(
      m.map(
        frame("session.next.tool.called", {
          assistantMessageID: M,
          callID: "c1",
          tool: "bash",
          input: { command: "echo hi" },
          provider: { executed: false },
        }),
      ),
    );
    expect(called[0]).toMatchObject({
      type: "block.updated",
      block: { id: "c1", tool: "bash", status: "running", input: { command: "echo hi" } },
    });
    const done = events(
      m.map(
        frame("session.next.tool.success", {
          assistantMessageID: M,
          callID: "c1",
          structured: { exit: 0 },
          content: [{ type: "text", text: "hi\n" }],
          provider: { executed: false },
        }),
      ),
    );
    expect(done[0]).toMatchObject({ block: { status: "completed", output: "hi\n", exitCode: 0 } });
  });

  it("a rejected permission ends the turn on the call's failure", () => {
    const m = new ApiEventMapper("b");
    const asked = m.map({
      type: "permission.v2.asked",
      data: {
        id: "per_1",
        sessionID: S,
        action: "bash",
        resources: ["echo x"],
        save: ["echo x"],
        source: { type: "tool", messageID: M, callID: "c2" },
      },
    });
    expect(asked).toMatchObject({
      kind: "interrupt",
      interrupt: {
        id: "per_1",
        kind: "permission",
        toolCallId: "c2",
        permission: { action: "bash", patterns: ["echo x"], always: ["echo x"] },
      },
    });
    expect(
      m.map({ type: "permission.v2.replied", data: { sessionID: S, requestID: "per_1", reply: "reject" } }),
    ).toEqual({ kind: "resolved", sessionId: S, interruptId: "per_1", outcome: "reject" });
    const failed = events(
      m.map(
        frame("session.next.tool.failed", {
          assistantMessageID: M,
          callID: "c2",
          error: { type: "unknown", message: "rejected" },
          provider: { executed: false },
        }),
      ),
    );
    expect(failed[0]).toMatchObject({ block: { status: "denied" } });
    expect(failed.at(-1)).toEqual({ type: "session.status", status: "idle" });
  });

  it("a rejected question ends the turn on the call's failure, as OpenCode does without a step frame", () => {
    // Recorded on 1.18.33: question.v2.asked, the console's reject, then only the call's failure.
    const m = new ApiEventMapper("b");
    const asked = m.map({
      type: "question.v2.asked",
      data: {
        id: "que_2174a56e70014O74oaAITaSrbs",
        sessionID: S,
        questions: [
          {
            question: "Pick",
            header: "Q",
            options: [
              { label: "a", description: "A" },
              { label: "b", description: "B" },
            ],
          },
        ],
        tool: { messageID: M, callID: "call_fake_1_0" },
      },
    });
    expect(asked).toMatchObject({ kind: "interrupt", interrupt: { kind: "question", toolCallId: "call_fake_1_0" } });
    expect(
      m.map({ type: "question.v2.rejected", data: { sessionID: S, requestID: "que_2174a56e70014O74oaAITaSrbs" } }),
    ).toEqual({ kind: "resolved", sessionId: S, interruptId: "que_2174a56e70014O74oaAITaSrbs", outcome: "rejected" });
    const failed = events(
      m.map(
        frame("session.next.tool.failed", {
          assistantMessageID: M,
          callID: "call_fake_1_0",
          error: { type: "unknown", message: "Tool execution interrupted" },
          provider: { executed: false },
        }),
      ),
    );
    expect(failed.at(-1)).toEqual({ type: "session.status", status: "idle" });
  });

  it("an answered question, and a permission rejected with feedback, leave the turn running (OpenCode goes on)", () => {
    const m = new ApiEventMapper("b");
    m.map({
      type: "question.v2.asked",
      data: {
        id: "que_1",
        sessionID: S,
        questions: [{ question: "Pick", header: "Q", options: [{ label: "a", description: "A" }] }],
        tool: { messageID: M, callID: "c1" },
      },
    });
    m.map({ type: "question.v2.replied", data: { sessionID: S, requestID: "que_1", answers: [["a"]] } });
    expect(
      events(
        m.map(
          frame("session.next.tool.failed", {
            assistantMessageID: M,
            callID: "c1",
            error: { type: "unknown", message: "x" },
          }),
        ),
      ).some((e) => e.type === "session.status"),
    ).toBe(false);
    // Recorded on 1.18.33: rejected with a message, the call fails and a new step follows.
    m.map({
      type: "permission.v2.asked",
      data: {
        id: "per_2174a6917001AaolJmqw9wi9nd",
        sessionID: S,
        action: "bash",
        resources: ["echo ask-feedback"],
        save: ["echo ask-feedback"],
        source: { type: "tool", messageID: M, callID: "call_fake_2_0" },
      },
    });
    m.rejectingWithFeedback("per_2174a6917001AaolJmqw9wi9nd");
    m.map({
      type: "permission.v2.replied",
      data: { sessionID: S, requestID: "per_2174a6917001AaolJmqw9wi9nd", reply: "reject" },
    });
    const failed = events(
      m.map(
        frame("session.next.tool.failed", {
          assistantMessageID: M,
          callID: "call_fake_2_0",
          error: { type: "unknown", message: "Unable to execute command: echo ask-feedback" },
          provider: { executed: false },
        }),
      ),
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ type: "block.updated", block: { status: "denied" } });
  });

  it("skips unknown and malformed frames without throwing, and says which", () => {
    const m = new ApiEventMapper("b");
    expect(m.map({ type: "session.next.brand.new", data: {} })).toEqual({ kind: "skip", reason: "unknown" });
    expect(m.map({ type: "session.next.text.delta", data: { sessionID: S } })).toEqual({
      kind: "skip",
      reason: "malformed",
    });
    expect(m.map("garbage")).toEqual({ kind: "skip", reason: "malformed" });
    expect(m.map({ type: "plugin.added", data: { id: "x" } })).toEqual({ kind: "skip" });
  });
});

describe("/api sessions and messages", () => {
  it("reads a session", () => {
    const s: ApiSession = {
      id: S,
      projectID: "p",
      cost: 0.5,
      tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
      time: { created: 1, updated: 2 },
      title: "T",
      location: { directory: "/w" },
      model: { id: "m", providerID: "p" },
    };
    expect(toApiSession(s, "b")).toMatchObject({
      id: S,
      backendId: "b",
      title: "T",
      directory: "/w",
      createdAt: 1,
      updatedAt: 2,
      model: { id: "m", provider: "p" },
      usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.5 },
    });
  });
  it("reads user and assistant messages with the stream's block ids", () => {
    expect(toApiMessage({ id: "msg_u", type: "user", time: { created: 1 }, text: "hello" }, S)).toEqual({
      id: "msg_u",
      sessionId: S,
      role: "user",
      createdAt: 1,
      blocks: [{ id: "msg_u-text", kind: "text", text: "hello" }],
    });
    const a = toApiMessage(
      {
        id: M,
        type: "assistant",
        time: { created: 1, completed: 2 },
        agent: "build",
        model: { id: "m", providerID: "p" },
        content: [
          { type: "reasoning", id: "reasoning-0", text: "hm", time: { created: 1, completed: 2 } },
          { type: "text", id: "text-0", text: "done" },
          {
            type: "tool",
            id: "c1",
            name: "bash",
            provider: { executed: false },
            state: {
              status: "completed",
              input: { command: "ls" },
              content: [{ type: "text", text: "a\n" }],
              structured: {},
            },
            time: { created: 1, completed: 2 },
          },
        ],
      },
      S,
    );
    expect(a?.blocks.map((b) => b.id)).toEqual(["reasoning-0", "text-0", "c1"]);
    expect(a?.blocks[2]).toMatchObject({ kind: "tool", tool: "bash", status: "completed", output: "a\n" });
    expect(a?.completedAt).toBe(2);
  });
});

describe("/api session usage", () => {
  it("is the sum of the messages' tokens and cost, without a context of its own", () => {
    expect(
      sumApiUsage([
        { inputTokens: 303, outputTokens: 22, costUsd: 0 },
        { inputTokens: 377, outputTokens: 3, cacheReadTokens: 100, costUsd: 0.5 },
        { inputTokens: 10, outputTokens: 1, reasoningTokens: 4 },
      ]),
    ).toEqual({
      inputTokens: 690,
      outputTokens: 26,
      reasoningTokens: 4,
      cacheReadTokens: 100,
      costUsd: 0.5,
    });
  });
  it("is undefined before anything used tokens", () => {
    expect(sumApiUsage([])).toBeUndefined();
    expect(sumApiUsage([{ inputTokens: 0, outputTokens: 0, costUsd: 0 }])).toBeUndefined();
  });
  it("a session as 1.18's /api reports it after a turn has no usage of its own (its totals stay zero)", () => {
    // Recorded: GET /api/session/:id after a turn whose assistant message used 305 + 11 tokens.
    const s: ApiSession = {
      id: S,
      projectID: "p",
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      time: { created: 1, updated: 1 },
      title: "T",
      location: { directory: "/w" },
    };
    expect(toApiSession(s, "b").usage).toBeUndefined();
  });
});
