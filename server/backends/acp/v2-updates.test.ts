import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  TimelineEvent as TimelineEventSchema,
  type Interrupt,
  type MessageInfo,
  type Session,
  type TimelineEvent,
  type ToolBlock,
} from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { applySessionSetup, beginTurn, endTurn, failTurn, newSessionState } from "./normalize";
import { applyV2Update, newV2State, v2PermissionRequest, type V2Applied } from "./v2-updates";

/**
 * Frames captured from the real adapters speaking ACP v2 to the SDK's v2 client, against the scripted
 * model (testing/record-v2.ts): codex-acp 2.6.0 (a shell command needing approval) and
 * claude-agent-acp 0.101.0 (a shell command it runs without asking).
 */
const dir = path.join(import.meta.dirname, "fixtures");
type Msg = Record<string, unknown> & { id?: unknown; method?: string; params?: unknown; result?: unknown };
const capture = (file: string) =>
  fs
    .readFileSync(path.join(dir, file), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { dir: "->" | "<-"; msg: Msg });

interface Run {
  state: SessionState;
  events: TimelineEvent[];
  interrupts: Interrupt[];
  applied: V2Applied[];
  promptAcked: boolean;
}

/** Drives a v2 capture the way a v2 client must: the prompt response is an ack, idle ends the turn. */
function drive(file: string): Run {
  const frames = capture(file);
  const sessionId = frames.map((f) => (f.msg.result as { sessionId?: string } | undefined)?.sessionId).find(Boolean)!;
  const session: Session = {
    id: sessionId,
    backendId: "acp",
    title: "New session",
    createdAt: 0,
    updatedAt: 0,
    status: "idle",
  };
  const norm = newSessionState(session);
  const v2 = newV2State();
  const events: TimelineEvent[] = [];
  const interrupts: Interrupt[] = [];
  const applied: V2Applied[] = [];
  let turn: MessageInfo | undefined;
  let promptId: unknown;
  let promptAcked = false;
  let now = 1_000;
  for (const { dir: d, msg: m } of frames) {
    now += 10;
    if (d === "->" && m.method === "session/prompt") {
      const t = beginTurn(norm, [{ type: "text", text: "Run echo v2-ok" }], now);
      events.push(...t.events);
      turn = { id: t.assistantId, sessionId, role: "assistant", createdAt: now + 1 };
      promptId = m.id;
    } else if (d === "<-" && m.method === "session/update") {
      const a = applyV2Update(norm, v2, (m.params as { update: unknown }).update, now);
      applied.push(a);
      events.push(...a.events);
      if (turn && a.ended) events.push(...endTurn(norm, turn.id, turn, a.ended, now));
      if (turn && a.failed)
        events.push(...failTurn(norm, turn.id, turn, { name: "AgentError", message: a.failed }, now));
      if (a.ended || a.failed) turn = undefined;
    } else if (d === "<-" && m.method === "session/request_permission") {
      const r = v2PermissionRequest(norm, m.params, `perm-${String(m.id)}`, now);
      if (r) {
        interrupts.push(r.interrupt);
        events.push(...r.events);
      }
    } else if (d === "<-" && m.id !== undefined && m.id === promptId && m.result) {
      // v2: the prompt response is an acknowledgement carrying the user message id, not the turn's end
      expect(m.result).toHaveProperty("messageId");
      expect(m.result).not.toHaveProperty("stopReason");
      promptAcked = true;
    } else if (d === "<-" && m.result && (m.result as { sessionId?: string }).sessionId === sessionId) {
      events.push(...applySessionSetup(norm, m.result));
    }
  }
  for (const e of events) expect(() => TimelineEventSchema.parse(e)).not.toThrow();
  return { state: applyAll({ ...emptyState, session }, events), events, interrupts, applied, promptAcked };
}

const assistant = (s: SessionState) => s.messages.filter((m) => m.role === "assistant");
const tools = (s: SessionState) => s.messages.flatMap((m) => m.blocks).filter((b): b is ToolBlock => b.kind === "tool");
const text = (s: SessionState) =>
  assistant(s)
    .flatMap((m) => m.blocks)
    .map((b) => (b.kind === "text" ? b.text : ""))
    .join("");

describe("ACP v2 → timeline, codex-acp 2.6.0 capture", () => {
  const run = drive("codex-acp-v2.jsonl");

  it("ends the turn on the idle state_update, with its usage; the prompt response is only an ack", () => {
    expect(run.promptAcked).toBe(true);
    expect(run.applied.filter((a) => a.ended)).toEqual([
      { ended: expect.objectContaining({ stopReason: "end_turn" }), events: [] },
    ]);
    const [a] = assistant(run.state);
    expect(a!.completedAt).toBeDefined();
    expect(a!.error).toBeUndefined();
    expect(a!.usage).toMatchObject({ inputTokens: 15715, outputTokens: 42 });
  });

  it("shows the reasoning, the reply text and the shell tool with its decoded terminal output", () => {
    expect(text(run.state)).toBe("Running it.Done: v2-ok.");
    const blocks = assistant(run.state)[0]!.blocks;
    expect(blocks.find((b) => b.kind === "reasoning")).toMatchObject({
      text: expect.stringContaining("Thinking it over."),
    });
    const [t] = tools(run.state);
    expect(t).toMatchObject({ status: "completed" });
    expect(t!.output).toContain("v2-ok");
  });

  it("shows the permission request's own title and description, about the subject's tool call", () => {
    expect(run.interrupts).toHaveLength(1);
    expect(run.interrupts[0]).toMatchObject({
      kind: "permission",
      title: "Run command? — check",
      toolCallId: "call_scripted_1_0",
    });
    expect(run.interrupts[0]!.permission!.options.map((o) => o.kind)).toContain("allow_once");
  });

  it("no protocol errors on a well-formed v2 stream", () => {
    expect(run.applied.filter((a) => a.protocolError)).toEqual([]);
  });
});

describe("ACP v2 → timeline, claude-agent-acp 0.101.0 capture", () => {
  const run = drive("claude-code-acp-v2.jsonl");

  it("ends the turn on idle with end_turn and the usage it reports", () => {
    expect(run.promptAcked).toBe(true);
    const [a] = assistant(run.state);
    expect(a!.completedAt).toBeDefined();
    expect(a!.usage).toMatchObject({ inputTokens: 7990, outputTokens: 30 });
  });

  it("builds the Bash tool from tool_call_update upserts alone, with the terminal's output", () => {
    const [t] = tools(run.state);
    expect(t).toBeDefined();
    expect(t!.input).toMatchObject({ command: "echo v2-ok" });
    expect(t!.status).toBe("completed");
    expect(t!.output).toContain("v2-ok");
    expect(text(run.state)).toContain("Done: v2-ok.");
  });
});

describe("ACP v2 upserts and states", () => {
  const setup = () => {
    const session: Session = { id: "s", backendId: "acp", title: "t", createdAt: 0, updatedAt: 0, status: "idle" };
    const norm = newSessionState(session);
    const t = beginTurn(norm, [{ type: "text", text: "hi" }], 1);
    return { session, norm, v2: newV2State(), events: [...t.events] };
  };

  it("an agent_message upsert replaces the block of its id, even after another block started", () => {
    const { session, norm, v2, events } = setup();
    const up = (u: object) => events.push(...applyV2Update(norm, v2, u, 5).events);
    up({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "Hel" } });
    up({ sessionUpdate: "agent_message", messageId: "m1", content: [{ type: "text", text: "Hello" }] });
    up({ sessionUpdate: "agent_thought_chunk", messageId: "r1", content: { type: "text", text: "hmm" } });
    up({ sessionUpdate: "agent_message", messageId: "m1", content: [{ type: "text", text: "Goodbye" }] });
    const s = applyAll({ ...emptyState, session }, events);
    const blocks = assistant(s)[0]!.blocks;
    expect(blocks.filter((b) => b.kind === "text").map((b) => (b.kind === "text" ? b.text : ""))).toEqual(["Goodbye"]);
    expect(blocks.filter((b) => b.kind === "reasoning")).toHaveLength(1);
  });

  it("a repeated idle snapshot is not a second end; an error stop fails the turn with its message", () => {
    const { norm, v2 } = setup();
    const st = (u: object) => applyV2Update(norm, v2, { sessionUpdate: "state_update", ...u }, 5);
    expect(st({ state: "running" })).toEqual({ events: [] });
    expect(st({ state: "idle", stopReason: "end_turn" }).ended).toEqual({ stopReason: "end_turn" });
    expect(st({ state: "idle", stopReason: "end_turn" }).ended).toBeUndefined();
    st({ state: "running" });
    expect(st({ state: "idle", stopReason: "error", error: { code: -32603, message: "model down" } }).failed).toBe(
      "model down",
    );
  });

  it("a v1-shaped update on a v2 connection is a protocol error, not a silent drop", () => {
    const { norm, v2 } = setup();
    for (const kind of ["tool_call", "plan", "current_mode_update"])
      expect(applyV2Update(norm, v2, { sessionUpdate: kind, toolCallId: "x" }, 5).protocolError).toContain(kind);
  });

  it("plan_update of items replaces the todo list", () => {
    const { norm, v2 } = setup();
    const a = applyV2Update(
      norm,
      v2,
      {
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "plan", entries: [{ content: "a", status: "pending", priority: "low" }] },
      },
      5,
    );
    expect(a.events).toEqual([{ type: "todo.updated", todos: [expect.objectContaining({ content: "a" })] }]);
  });
});
