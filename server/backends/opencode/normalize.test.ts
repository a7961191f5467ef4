import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  Message as MessageSchema,
  TimelineEvent as TimelineEventSchema,
  type Session,
  type TimelineEvent,
  type ToolBlock,
} from "@/lib/model";
import { applyAll, emptyState, type SessionState } from "@/lib/timeline/reducer";
import { completedTool, fixtureLines } from "../../../testkit/adapter-harness";
import {
  keepShownText,
  normalizeEvent,
  settleIdle,
  toMessage,
  toPermissionInterrupt,
  toQuestionInterrupt,
  unwrapFrame,
  type Normalized,
} from "./normalize";

const dir = path.join(import.meta.dirname, "fixtures");

/** The payload of every `data:` line of a captured SSE stream. */
function frames(file: string): unknown[] {
  return fixtureLines(dir, file)
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as unknown);
}

function normalizeFile(file: string): Normalized[] {
  return frames(file).flatMap((f) => {
    const u = unwrapFrame(f);
    return u ? normalizeEvent(u.type, u.properties, "oc", 1000) : [];
  });
}

/** Materializes the main session of a capture the way the hub does. */
function materialize(file: string | string[], sessionId?: string): { state: SessionState; events: TimelineEvent[] } {
  const all = (Array.isArray(file) ? file : [file]).flatMap(normalizeFile);
  const sid = sessionId ?? all.find((n) => n.event.type === "session.status")?.sessionId ?? all[0]!.sessionId;
  const events = all.filter((n) => n.sessionId === sid).map((n) => n.event);
  const session: Session = { id: sid, backendId: "oc", title: "t", createdAt: 0, updatedAt: 0, status: "idle" };
  return { state: applyAll({ ...emptyState, session }, events), events };
}

const tools = (s: SessionState) => s.messages.flatMap((m) => m.blocks).filter((b): b is ToolBlock => b.kind === "tool");

describe("OpenCode normalizer on real captures", () => {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".txt"));

  it.each(files)("%s yields only valid canonical events and never throws", (file) => {
    const out = normalizeFile(file);
    for (const n of out) {
      expect(typeof n.sessionId).toBe("string");
      const parsed = TimelineEventSchema.safeParse(n.event);
      if (!parsed.success)
        throw new Error(`${file}: ${JSON.stringify(n.event).slice(0, 200)} → ${parsed.error.message}`);
    }
  });

  it("streams text through deltas to the same text as the final snapshot", () => {
    const all = normalizeFile("sse-text.txt");
    const deltas = all.filter((n) => n.event.type === "block.delta");
    expect(deltas.length).toBeGreaterThan(2);
    // Apply everything except full text updates after the opening one: deltas alone must build the text.
    const seen = new Set<string>();
    const withoutFinal = all
      .map((n) => n.event)
      .filter((e) => {
        if (e.type !== "block.updated" || e.block.kind !== "text") return true;
        if (seen.has(e.block.id)) return false;
        seen.add(e.block.id);
        return true;
      });
    const { state } = materialize("sse-text.txt");
    const built = applyAll({ ...emptyState, session: state.session }, withoutFinal);
    const finalTexts = state.messages
      .filter((m) => m.role === "assistant")
      .flatMap((m) => m.blocks.filter((b) => b.kind === "text").map((b) => (b.kind === "text" ? b.text : "")));
    const builtTexts = built.messages
      .filter((m) => m.role === "assistant")
      .flatMap((m) => m.blocks.filter((b) => b.kind === "text").map((b) => (b.kind === "text" ? b.text : "")));
    expect(finalTexts.length).toBeGreaterThan(0);
    expect(finalTexts[0]!.length).toBeGreaterThan(10);
    expect(builtTexts).toEqual(finalTexts);
    expect(state.session?.status).toBe("idle");
  });

  it("takes a bash tool from pending to completed with output and exit code", () => {
    const { state, events } = materialize("sse-bash.txt");
    const statuses = events.flatMap((e) =>
      e.type === "block.updated" && e.block.kind === "tool" ? [e.block.status] : [],
    );
    expect(statuses[0]).toBe("pending");
    expect(statuses).toContain("running");
    const [bash] = tools(state);
    expect(bash).toMatchObject(completedTool("bash", { output: "hi\n", exitCode: 0, input: { command: "echo hi" } }));
    expect(bash!.endedAt! - bash!.startedAt!).toBeGreaterThanOrEqual(0);
    const usage = state.messages.find((m) => m.role === "assistant" && m.usage)?.usage;
    expect(usage?.inputTokens).toBeGreaterThan(0);
  });

  it("keeps reasoning as its own block", () => {
    const { state } = materialize("sse-think.txt");
    const r = state.messages.flatMap((m) => m.blocks).find((b) => b.kind === "reasoning");
    expect(r && r.kind === "reasoning" && r.text.length).toBeGreaterThan(5);
  });

  it("marks an aborted message calmly and emits no error event", () => {
    const { state, events } = materialize("sse-abort.txt");
    expect(events.some((e) => e.type === "error")).toBe(false);
    expect(state.messages.some((m) => m.error?.aborted)).toBe(true);
    expect(state.session?.status).toBe("idle");
  });

  it("surfaces an upstream 400 with its message", () => {
    const { state, events } = materialize("sse-llm-400.txt");
    const err = events.find((e) => e.type === "error");
    expect(err).toMatchObject({ type: "error", code: "APIError" });
    expect(err && err.type === "error" && err.message).toContain("fake bad request");
    expect(state.lastError?.message).toContain("fake bad request");
    expect(state.messages.find((m) => m.error)?.error?.message).toContain("HTTP 400");
  });

  it("shows retries with their detail", () => {
    const { events } = materialize("sse-llm-500.txt");
    const retry = events.find((e) => e.type === "session.status" && e.status === "retry");
    expect(retry && retry.type === "session.status" && retry.detail).toMatch(/fake upstream failure \(attempt 1/);
  });

  it("follows todowrite into todos", () => {
    const { state } = materialize("sse-todo.txt");
    expect(state.todos.length).toBeGreaterThan(0);
    expect(state.todos[0]).toHaveProperty("content");
    expect(tools(state).some((t) => t.tool === "todo" && t.rawTool === "todowrite")).toBe(true);
  });

  it("turns permission.asked into an interrupt and the tool into awaiting-approval", () => {
    const { state, events } = materialize("sse-permission.txt");
    const req = events.find((e) => e.type === "interrupt.requested");
    expect(req && req.type === "interrupt.requested" && req.interrupt).toMatchObject({
      kind: "permission",
      toolCallId: "call_fake_4_0",
      permission: { action: "bash", patterns: ["echo hi"], always: ["echo *"] },
    });
    expect(state.interrupts).toHaveLength(1);
    expect(tools(state)[0]?.status).toBe("awaiting-approval");
    expect(state.session?.status).toBe("waiting");
  });

  it("resolves a permission reply and completes the tool", () => {
    const { state, events } = materialize("sse-permission-reply.txt");
    expect(events.some((e) => e.type === "interrupt.resolved" && e.outcome === "once")).toBe(true);
    expect(state.interrupts).toHaveLength(0);
    expect(tools(state).some((t) => t.status === "completed")).toBe(true);
  });

  it("shows a rejected permission as denied", () => {
    // The capture was recorded in two parts: the ask, then (after a reconnect) the reply.
    const { state, events } = materialize(["sse-permission-reject.txt", "sse-permission-reject2.txt"]);
    expect(events.some((e) => e.type === "interrupt.resolved" && e.outcome === "reject")).toBe(true);
    expect(state.interrupts).toHaveLength(0);
    expect(tools(state).some((t) => t.status === "denied")).toBe(true);
  });

  it("turns question.asked into a question interrupt with options", () => {
    const { events } = materialize("sse-question.txt");
    const req = events.find((e) => e.type === "interrupt.requested");
    expect(req && req.type === "interrupt.requested" && req.interrupt.questions?.[0]).toMatchObject({
      header: "Color",
      question: "Which color do you prefer?",
      options: [{ label: "red" }, { label: "blue" }],
    });
  });

  it("links a task tool to its child session", () => {
    const { state } = materialize("sse-task.txt");
    const task = tools(state).find((t) => t.tool === "task");
    expect(task?.childSessionId).toMatch(/^ses_/);
    expect(task?.status).toBe("completed");
  });

  it("marks compaction with a notice", () => {
    const all = normalizeFile("sse-summarize.txt");
    expect(all.some((n) => n.event.type === "block.updated" && n.event.block.kind === "notice")).toBe(true);
  });

  it("unwraps /global/event frames", () => {
    const all = normalizeFile("sse-global-event.txt");
    expect(all.length).toBeGreaterThan(5);
    expect(all.some((n) => n.event.type === "session.status")).toBe(true);
  });

  it("ignores malformed frames instead of throwing", () => {
    const junk: unknown[] = [
      null,
      42,
      "x",
      [],
      { type: 5 },
      { payload: { type: "message.part.updated", properties: { part: "nope" } } },
      { type: "message.part.delta", properties: { sessionID: 1 } },
    ];
    for (const j of junk) {
      const u = unwrapFrame(j);
      expect(() => (u ? normalizeEvent(u.type, u.properties, "oc") : [])).not.toThrow();
    }
    expect(normalizeEvent("permission.asked", { id: 3 }, "oc")).toEqual([]);
  });
});

describe("every interrupt capture", () => {
  const asked: [string, "permission" | "question", string][] = [
    ["sse-permission.txt", "permission", "bash"],
    ["sse-permission-reject.txt", "permission", "bash"],
    ["sse-cfgperm-1.txt", "permission", "bash"],
    ["sse-cfgperm-3.txt", "permission", "edit"],
    ["sse-external-dir.txt", "permission", "external_directory"],
    ["sse-question.txt", "question", "Which color do you prefer?"],
    ["sse-question2.txt", "question", "Which color do you prefer?"],
  ];
  it.each(asked)("%s asks a %s interrupt (%s)", (file, kind, what) => {
    const req = normalizeFile(file).find((n) => n.event.type === "interrupt.requested");
    if (req?.event.type !== "interrupt.requested") throw new Error("no interrupt");
    const it = req.event.interrupt;
    expect(it.kind).toBe(kind);
    expect(it.id).toMatch(kind === "permission" ? /^per_/ : /^que_/);
    expect(it.toolCallId).toMatch(/^call_/);
    if (kind === "permission") {
      expect(it.permission?.action).toBe(what);
      expect(it.permission?.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject"]);
      expect(it.permission?.patterns.length).toBeGreaterThan(0);
    } else {
      expect(it.questions?.[0]?.question).toBe(what);
      expect(it.questions?.[0]?.options.length).toBeGreaterThan(1);
    }
  });
  it.each([
    ["sse-permission-reply.txt", "once"],
    ["sse-permission-reject2.txt", "reject"],
    ["sse-question-reply.txt", "answered"],
    ["sse-question-reject.txt", "rejected"],
  ])("%s resolves with outcome %s", (file, outcome) => {
    const res = normalizeFile(file).find((n) => n.event.type === "interrupt.resolved");
    expect(res?.event).toMatchObject({ type: "interrupt.resolved", outcome });
  });
  it("an edit permission carries the file and the diff it would apply; a bash one carries neither", () => {
    const ask = (file: string) => normalizeFile(file).find((n) => n.event.type === "interrupt.requested")!.event;
    const edit = ask("sse-cfgperm-3.txt");
    if (edit.type !== "interrupt.requested") throw new Error("no interrupt");
    expect(edit.interrupt.permission?.path).toMatch(/hello\.txt$/);
    expect(edit.interrupt.permission?.diff).toContain("+hello from fake llm");
    const bash = ask("sse-permission.txt");
    if (bash.type !== "interrupt.requested") throw new Error("no interrupt");
    expect(bash.interrupt.permission?.path).toBeUndefined();
    expect(bash.interrupt.permission?.diff).toBeUndefined();
  });
  it("a dismissed question leaves the question tool denied", () => {
    const { state } = materialize("sse-question-reject.txt");
    expect(tools(state).find((t) => t.tool === "question")?.status).toBe("denied");
  });
});

describe("OpenCode history and pending lists", () => {
  it("maps the paged messages route to canonical messages", () => {
    const raw = JSON.parse(fs.readFileSync(path.join(dir, "messages-page1.json"), "utf8")) as unknown[];
    const msgs = raw.map(toMessage);
    expect(msgs.every(Boolean)).toBe(true);
    for (const m of msgs) expect(MessageSchema.safeParse(m).success).toBe(true);
    expect(msgs.some((m) => m!.role === "assistant" && m!.blocks.some((b) => b.kind === "text"))).toBe(true);
    // step-start / step-finish are bookkeeping, not blocks
    expect(
      msgs.flatMap((m) => m!.blocks).every((b) => ["text", "reasoning", "tool", "file", "notice"].includes(b.kind)),
    ).toBe(true);
  });

  it("maps pending permission and question payloads", () => {
    const perm = frames("sse-permission.txt")
      .map(unwrapFrame)
      .find((f) => f?.type === "permission.asked");
    expect(toPermissionInterrupt(perm!.properties)?.kind).toBe("permission");
    const q = frames("sse-question.txt")
      .map(unwrapFrame)
      .find((f) => f?.type === "question.asked");
    expect(toQuestionInterrupt(q!.properties)?.questions?.[0]?.custom).toBe(true);
  });
});

describe("settleIdle", () => {
  it("marks tools left running in an idle session as cancelled, and leaves the rest alone", () => {
    // The bash capture cut off while its tool was still running:
    const cut = normalizeFile("sse-bash.txt");
    const upTo = cut.findIndex(
      (n) => n.event.type === "block.updated" && n.event.block.kind === "tool" && n.event.block.status === "running",
    );
    const running = applyAll(
      emptyState,
      cut.slice(0, upTo + 1).map((n) => n.event),
    );
    const settled = settleIdle(running.messages);
    const t = settled.flatMap((m) => m.blocks).find((b) => b.kind === "tool");
    expect(t).toMatchObject({ status: "cancelled" });
    expect(t && t.kind === "tool" && t.error).toMatch(/Interrupted/);
    const done = materialize("sse-bash.txt").state.messages;
    expect(settleIdle(done)).toEqual(done);
    expect(settleIdle(done)[0]).toBe(done[0]);
  });
});

describe("keepShownText", () => {
  const reply = (blocks: MessageSchema["blocks"]): MessageSchema => ({
    id: "msg_1",
    sessionId: "ses_1",
    role: "assistant",
    createdAt: 1,
    error: { name: "TurnInterrupted", message: "OpenCode stopped during this reply" },
    blocks,
  });

  it("keeps the text shown live where the server stored a prefix of it, and blocks it never stored", () => {
    // OpenCode 1.x stores a text part empty when it starts and its text when it ends.
    const stored = reply([
      { id: "prt_r", kind: "reasoning", text: "Think" },
      { id: "prt_t", kind: "text", text: "" },
    ]);
    const shown = reply([
      { id: "prt_r", kind: "reasoning", text: "Thinking about it" },
      { id: "prt_t", kind: "text", text: "x0 x1 x2 x3" },
      { id: "prt_u", kind: "text", text: "never stored" },
    ]);
    expect(keepShownText(stored, shown).blocks).toEqual(shown.blocks);
  });

  it("keeps the stored text where it is longer or differs, and returns the stored reply unchanged when nothing is kept", () => {
    const stored = reply([
      { id: "prt_t", kind: "text", text: "x0 x1 x2 x3 x4" },
      { id: "prt_o", kind: "text", text: "other" },
    ]);
    const shown = reply([
      { id: "prt_t", kind: "text", text: "x0 x1" },
      { id: "prt_o", kind: "text", text: "not a prefix of it" },
    ]);
    expect(keepShownText(stored, shown)).toBe(stored);
  });
});
