/**
 * The Copilot headless mapping on real transcripts of `copilot --headless --stdio` 1.0.102
 * (./fixtures: `headless-byok` and `headless-noauth` as captured from the real CLI; `headless-tools`,
 * `headless-resume` and `get-messages*` recorded offline against the scripted model with
 * permissions, ask_user, an MCP elicitation, file edits, a rewind, a compaction and an abort — the
 * `model.*` telemetry dropped and strings over 2,000 characters cut to keep them small).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TimelineEvent as TimelineEventSchema, type Session, type TimelineEvent, type ToolBlock } from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { checkInputValues } from "@/lib/input-form";
import { parseEvent, parseSessionEvent } from "./events";
import { toInputSchema } from "./interrupt-events";
import { CopilotTimeline, historyMessages } from "./normalize";
import { shellOutput } from "./tools";

const fixture = (name: string) => path.join(import.meta.dirname, "fixtures", name);

interface Frame {
  dir: string;
  msg: { method?: string; params?: unknown; id?: number; result?: unknown };
}
function frames(name: string): Frame[] {
  return fs
    .readFileSync(fixture(name), "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((l) => {
      // These captures cut their longest lines (model telemetry) short: skip those.
      try {
        return [JSON.parse(l) as Frame];
      } catch {
        return [];
      }
    });
}

function session(id: string): Session {
  return { id, backendId: "cp", title: "New session", createdAt: 1, updatedAt: 1, status: "idle" };
}

/** Replays every `session.event` of a transcript through one timeline and the shared reducer. */
function replay(name: string): { state: SessionState; events: TimelineEvent[]; tl: CopilotTimeline } {
  const all = frames(name).filter((f) => f.dir === "<-" && f.msg.method === "session.event");
  const first = parseSessionEvent(all[0]!.msg.params)!;
  const tl = new CopilotTimeline(session(first.sessionId));
  const events: TimelineEvent[] = [{ type: "session.updated", session: tl.session }];
  for (const f of all) {
    const p = parseSessionEvent(f.msg.params);
    if (p) events.push(...tl.apply(p.event));
  }
  return { state: applyAll(emptyState, events), events, tl };
}

const text = (s: SessionState, role: "user" | "assistant") =>
  s.messages
    .filter((m) => m.role === role)
    .map((m) => m.blocks.flatMap((b) => (b.kind === "text" ? [b.text] : [])).join(""));
const tools = (s: SessionState) => s.messages.flatMap((m) => m.blocks).filter((b): b is ToolBlock => b.kind === "tool");

function invalidEvents(events: TimelineEvent[]) {
  return events.filter((e) => !TimelineEventSchema.safeParse(e).success);
}

describe("Copilot headless mapping: a streamed reply (BYOK capture)", () => {
  const { state, events } = replay("headless-byok.jsonl");

  it("streams the reply by messageId and ends with the final text, idle", () => {
    const deltas = events.filter((e) => e.type === "block.delta" && e.field === "text");
    expect(deltas.map((e) => (e.type === "block.delta" ? e.delta : "")).join("")).toBe("Hello from the mock model.");
    expect(text(state, "user")).toEqual(["hello"]);
    expect(text(state, "assistant")).toEqual(["Hello from the mock model."]);
    expect(state.session?.status).toBe("idle");
    expect(events.at(-1)).toEqual({ type: "session.status", status: "idle" });
  });

  it("takes the title, the model and the usage from the events", () => {
    expect(state.session?.title).toBe("hello");
    expect(state.session?.model).toEqual({ id: "gpt-4.1" });
    const reply = state.messages.find((m) => m.role === "assistant")!;
    expect(reply.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    expect(reply.parentId).toBe(state.messages[0]!.id);
    expect(reply.completedAt).toBeGreaterThanOrEqual(reply.createdAt);
    expect(state.session?.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, contextWindow: 128000 });
  });

  it("emits only canonical events", () => {
    expect(invalidEvents(events)).toEqual([]);
  });
});

describe("Copilot headless mapping: no login (capture)", () => {
  it("turns session.error into a failed turn that ends idle", () => {
    const { state, events } = replay("headless-noauth.jsonl");
    const failed = state.messages.filter((m) => m.role === "assistant");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toMatchObject({
      name: "query",
      message: expect.stringContaining("No GitHub OAuth token"),
    });
    expect(state.session?.status).toBe("idle");
    expect(invalidEvents(events)).toEqual([]);
  });
});

describe("Copilot headless mapping: tools, permissions, questions, forms (recorded session)", () => {
  const { state, events } = replay("headless-tools.jsonl");
  const requested = events.flatMap((e) => (e.type === "interrupt.requested" ? [e.interrupt] : []));
  const resolved = events.flatMap((e) => (e.type === "interrupt.resolved" ? [e] : []));

  it("keeps one user message per prompt and shows reasoning by reasoningId", () => {
    expect(text(state, "user")).toEqual([
      "hello there",
      "run bash one",
      "run bash two",
      "ask me",
      "register the project",
      "write file",
      "edit notes",
      "view notes",
      "slow one",
    ]);
    const first = state.messages.find((m) => m.role === "assistant")!;
    expect(first.blocks.map((b) => b.kind)).toEqual(["reasoning", "text"]);
    expect(first.blocks[0]).toMatchObject({ kind: "reasoning", text: "Thinking about greeting." });
    expect(first.blocks[1]).toMatchObject({ kind: "text", text: "Hello from the scripted model." });
  });

  it("maps a bash call with its permission, output and exit code", () => {
    const bash = tools(state).find((t) => t.callId === "call_fake_2_0")!;
    expect(bash).toMatchObject({
      tool: "bash",
      rawTool: "bash",
      status: "completed",
      output: "hi-from-bash",
      exitCode: 0,
    });
    expect(bash.input).toMatchObject({ command: "echo hi-from-bash", description: "Say hi" });
    const perm = requested.find((i) => i.toolCallId === "call_fake_2_0")!;
    expect(perm).toMatchObject({
      kind: "permission",
      title: "Run echo hi-from-bash",
      permission: { action: "bash", patterns: ["echo hi-from-bash"] },
    });
    // a shell command offers no session-wide approval here
    expect(perm.permission!.options.map((o) => o.kind)).toEqual(["allow_once", "reject"]);
    expect(resolved.find((r) => r.interruptId === perm.id)?.outcome).toBe("allow_once");
  });

  it("shows a rejected call as denied with the feedback", () => {
    const denied = tools(state).find((t) => t.callId === "call_fake_4_0")!;
    expect(denied.status).toBe("denied");
    expect(denied.error).toContain("use ls instead");
    const perm = requested.find((i) => i.toolCallId === "call_fake_4_0")!;
    expect(resolved.find((r) => r.interruptId === perm.id)?.outcome).toBe("reject");
  });

  it("raises ask_user as a question with its choices and free text", () => {
    const q = requested.find((i) => i.kind === "question")!;
    expect(q.id).toMatch(/^ask_/);
    expect(q.questions).toEqual([
      { question: "Which color?", options: [{ label: "red" }, { label: "green" }], custom: true },
    ]);
    expect(resolved.find((r) => r.interruptId === q.id)?.outcome).toBe("answered");
    expect(tools(state).find((t) => t.rawTool === "ask_user")).toMatchObject({
      tool: "question",
      status: "completed",
      output: "User responded: blue, obviously",
    });
  });

  it("raises an MCP elicitation as an input form generated from its schema", () => {
    const form = requested.find((i) => i.kind === "input")!;
    expect(form.id).toMatch(/^form_/);
    expect(form.input?.prompt).toBe("Describe the project to register");
    expect(form.input?.schema).toEqual({
      type: "object",
      properties: {
        name: { type: "string", title: "Project name", description: "Lowercase, no spaces", minLength: 2 },
        license: {
          type: "string",
          title: "License",
          enum: ["MIT", "Apache-2.0", "GPL-3.0"],
          enumNames: ["MIT", "Apache 2.0", "GPL 3.0"],
        },
        stars: { type: "integer", title: "Stars", minimum: 0, maximum: 5 },
        private: { type: "boolean", title: "Private", default: false },
      },
      required: ["name", "license"],
    });
    // What the probe answered fits the generated form.
    expect(checkInputValues(form.input!.schema!, { name: "demo", license: "MIT", stars: 3, private: true }).ok).toBe(
      true,
    );
    expect(resolved.find((r) => r.interruptId === form.id)?.outcome).toBe("accept");
    const mcp = tools(state).find((t) => t.rawTool === "forms-register_project")!;
    expect(mcp).toMatchObject({ tool: "other", title: "Register a project", status: "completed" });
    expect(requested.find((i) => i.toolCallId === mcp.callId && i.kind === "permission")?.title).toBe(
      "Use Register a project (forms)",
    );
  });

  it("maps create, edit and view onto the canonical write, edit and read tools", () => {
    const create = tools(state).find((t) => t.rawTool === "create")!;
    expect(create).toMatchObject({ tool: "write", status: "completed" });
    expect(create.input).toMatchObject({ filePath: expect.stringMatching(/hello\.txt$/), content: "hello\n" });
    const perm = requested.find((i) => i.toolCallId === create.callId)!;
    expect(perm.permission).toMatchObject({
      action: "edit",
      path: expect.stringMatching(/hello\.txt$/),
      diff: expect.stringContaining("+hello"),
    });
    expect(perm.permission!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject"]);
    // the CLI reports a session-wide approval as plain "approved"
    expect(resolved.find((r) => r.interruptId === perm.id)?.outcome).toMatch(/^allow_/);
    const edit = tools(state).find((t) => t.rawTool === "edit")!;
    expect(edit.input).toMatchObject({
      filePath: expect.stringMatching(/notes\.txt$/),
      oldString: "original",
      newString: "changed",
    });
    expect(tools(state).find((t) => t.rawTool === "view")).toMatchObject({ tool: "read", output: "changed\n" });
  });

  it("marks a compaction and an aborted turn", () => {
    const notice = state.messages.flatMap((m) => m.blocks).find((b) => b.kind === "notice");
    expect(notice).toMatchObject({ code: "compaction", text: expect.stringMatching(/^Conversation compacted/) });
    const last = state.messages.filter((m) => m.role === "assistant").at(-1)!;
    expect(last.error).toEqual({ name: "Aborted", message: "Stopped", aborted: true });
    expect(state.session?.status).toBe("idle");
    expect(state.interrupts).toEqual([]);
  });

  it("emits only canonical events", () => {
    expect(invalidEvents(events)).toEqual([]);
  });
});

describe("Copilot headless history (session.getMessages)", () => {
  const live = replay("headless-tools.jsonl").state;
  const sid = live.session!.id;
  const read = (name: string) => (JSON.parse(fs.readFileSync(fixture(name), "utf8")) as { events: unknown[] }).events;

  it("gives the same message ids and texts as the live stream", () => {
    const { messages } = historyMessages(session(sid), read("get-messages.json"));
    const users = messages.filter((m) => m.role === "user");
    expect(users.map((m) => m.blocks[0]?.kind === "text" && m.blocks[0].text)).toEqual([
      "hello there",
      "run bash one",
      "run bash two",
      "ask me",
      "register the project",
      "write file",
      "edit notes",
      "view notes",
    ]);
    const liveIds = live.messages.map((m) => m.id);
    for (const m of messages) expect(liveIds).toContain(m.id);
    // reasoning comes back from the final message's reasoningText, in the same block
    const first = messages.find((m) => m.role === "assistant")!;
    expect(first.blocks[0]).toMatchObject({
      id: live.messages.find((m) => m.role === "assistant")!.blocks[0]!.id,
      kind: "reasoning",
      text: "Thinking about greeting.",
    });
    expect(tools({ ...emptyState, messages }).map((t) => t.status)).toEqual([
      "completed",
      "denied",
      "completed",
      "completed",
      "completed",
      "completed",
      "completed",
    ]);
  });

  it("after a rewind, holds only what came before the rewound prompt", () => {
    const { messages } = historyMessages(session(sid), read("get-messages-after-rewind.json"));
    expect(text({ ...emptyState, messages }, "user")).toEqual([
      "hello there",
      "run bash one",
      "run bash two",
      "ask me",
      "register the project",
    ]);
  });
});

describe("Copilot headless mapping: defensive", () => {
  it("ignores malformed and unknown events without throwing", () => {
    const tl = new CopilotTimeline(session("s"));
    expect(parseEvent(null)).toBeUndefined();
    expect(parseEvent({ type: "user.message" })).toBeUndefined();
    expect(parseSessionEvent({ sessionId: 3, event: {} })).toBeUndefined();
    const junk = [
      { id: "1", type: "tool.execution_complete", data: { toolCallId: "nope" } },
      { id: "2", type: "assistant.message_delta", data: { messageId: 5 } },
      { id: "3", type: "permission.requested", data: { permissionRequest: "x" } },
      {
        id: "4",
        type: "elicitation.requested",
        data: { requestId: "r", requestedSchema: { properties: { a: { type: "array" } } } },
      },
      { id: "5", type: "something.new", data: { whatever: true } },
      { id: "6", type: "tool.execution_start", data: null },
      { id: "7", type: "session.usage_info", data: { currentTokens: "lots" } },
    ];
    for (const j of junk) expect(() => tl.apply(parseEvent(j)!)).not.toThrow();
    const out = junk.flatMap((j) => tl.apply(parseEvent(j)!));
    expect(out.filter((e) => e.type !== "interrupt.requested")).toEqual([]);
    // an elicitation whose fields cannot be filled in here is still asked, as a plain prompt
    expect(out.find((e) => e.type === "interrupt.requested")).toMatchObject({
      interrupt: { kind: "input", input: { prompt: "" } },
    });
  });

  it("converts titled enums, keeps only fields it can render, and strips the shell marker", () => {
    expect(
      toInputSchema({
        type: "object",
        properties: {
          size: {
            type: "string",
            oneOf: [
              { const: "s", title: "Small" },
              { const: "l", title: "Large" },
            ],
          },
          tags: { type: "array", items: { type: "string" } },
          when: { type: "string", format: "date" },
        },
        required: ["size", "tags"],
      }),
    ).toEqual({
      type: "object",
      properties: {
        size: { type: "string", enum: ["s", "l"], enumNames: ["Small", "Large"] },
        when: { type: "string", format: "date" },
      },
      required: ["size"],
    });
    expect(toInputSchema({ properties: { x: { type: "object" } } })).toBeUndefined();
    expect(shellOutput("a\nb\n<shellId: 3 completed with exit code 2>")).toEqual({ output: "a\nb", exitCode: 2 });
  });
});
