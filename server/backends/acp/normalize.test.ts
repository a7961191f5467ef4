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
import {
  applySessionSetup,
  applyUpdate,
  beginTurn,
  endReplay,
  endTurn,
  failTurn,
  mergeTool,
  newSessionState,
  permissionRequest,
  toolNameOf,
  type AcpSessionState,
} from "./normalize";

const dir = path.join(import.meta.dirname, "fixtures");

interface Frame {
  dir: "in" | "out";
  msg: Record<string, unknown>;
}

/** A capture: one `{t, dir, msg}` per line; a few lines were truncated by the recorder and are skipped. */
function capture(file: string): Frame[] {
  const out: Frame[] = [];
  for (const line of fs.readFileSync(path.join(dir, file), "utf8").split("\n")) {
    if (!line.trim()) continue;
    let rec: { dir?: string; msg?: Record<string, unknown> };
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      continue;
    }
    if (!rec.msg || (rec.dir !== "->" && rec.dir !== ">" && rec.dir !== "<-" && rec.dir !== "<")) continue;
    out.push({ dir: rec.dir.startsWith("-") || rec.dir === ">" ? "out" : "in", msg: rec.msg });
  }
  return out;
}

interface Run {
  events: TimelineEvent[];
  state: SessionState;
  norm: AcpSessionState;
  interrupts: Interrupt[];
}

/**
 * Replays a capture through the normalizer the way the adapter drives it: prompts open turns, their
 * results close them, `session/load` collects a replay into a fresh state.
 */
function drive(file: string, opts: { sessionId?: string; replayOnly?: boolean } = {}): Run {
  const frames = capture(file);
  const sessionId =
    opts.sessionId ??
    (frames
      .map(
        (f) =>
          (f.msg.params as { sessionId?: string } | undefined)?.sessionId ??
          (f.msg.result as { sessionId?: string } | undefined)?.sessionId,
      )
      .find(Boolean) as string);
  const session: Session = {
    id: sessionId,
    backendId: "acp",
    title: "New session",
    createdAt: 0,
    updatedAt: 0,
    status: "idle",
  };
  let norm = newSessionState(session);
  let events: TimelineEvent[] = [];
  const interrupts: Interrupt[] = [];
  const pending = new Map<
    unknown,
    | { kind: "prompt"; assistant: MessageInfo }
    | { kind: "load"; before: { norm: AcpSessionState; events: TimelineEvent[] } }
    | { kind: "setup" }
  >();
  let now = 1_000;
  for (const f of frames) {
    now += 10;
    const m = f.msg;
    if (f.dir === "out" && typeof m.method === "string" && m.id !== undefined) {
      const params = (m.params ?? {}) as { sessionId?: string; prompt?: { type: string; text: string }[] };
      if (m.method === "session/prompt" && params.sessionId === sessionId && !opts.replayOnly) {
        const t = beginTurn(
          norm,
          (params.prompt ?? []).map((p) => ({ type: "text" as const, text: p.text })),
          now,
        );
        events.push(...t.events);
        pending.set(m.id, {
          kind: "prompt",
          assistant: { id: t.assistantId, sessionId, role: "assistant", createdAt: now + 1 },
        });
      } else if (m.method === "session/load" && params.sessionId === sessionId) {
        // collect the replay into a fresh state
        pending.set(m.id, { kind: "load", before: { norm, events } });
        norm = newSessionState(session, { replayFrom: 0 });
        events = [];
      } else if (m.method === "session/new" || m.method === "session/set_config_option") {
        pending.set(m.id, { kind: "setup" });
      }
    } else if (f.dir === "in" && m.method === "session/update") {
      const p = m.params as { sessionId: string; update: unknown };
      if (p.sessionId === sessionId) events.push(...applyUpdate(norm, p.update, now));
    } else if (f.dir === "in" && m.method === "session/request_permission") {
      const r = permissionRequest(norm, m.params, `perm-${String(m.id)}`, now);
      if (r) {
        interrupts.push(r.interrupt);
        events.push(...r.events);
      }
    } else if (
      f.dir === "out" &&
      m.id !== undefined &&
      m.method === undefined &&
      interrupts.some((i) => i.id === `perm-${String(m.id)}`)
    ) {
      const outcome = ((m.result as { outcome?: { optionId?: string } }).outcome?.optionId ?? "cancelled").startsWith(
        "reject",
      )
        ? "reject"
        : "allow";
      events.push({ type: "interrupt.resolved", interruptId: `perm-${String(m.id)}`, outcome });
    } else if (f.dir === "in" && m.id !== undefined && m.method === undefined && pending.has(m.id)) {
      const p = pending.get(m.id)!;
      pending.delete(m.id);
      if (p.kind === "prompt" && m.result) events.push(...endTurn(norm, p.assistant.id, p.assistant, m.result, now));
      if (p.kind === "load" && m.error)
        ({ norm, events } = p.before); // e.g. "already loaded"
      else if (p.kind === "load") events.push(...endReplay(norm));
      if (m.result && p.kind !== "prompt") events.push(...applySessionSetup(norm, m.result));
    }
  }
  const state = applyAll({ ...emptyState, session }, events);
  return { events, state, norm, interrupts };
}

const blocks = (s: SessionState) => s.messages.flatMap((m) => m.blocks);
const tools = (s: SessionState) => blocks(s).filter((b): b is ToolBlock => b.kind === "tool");
const texts = (s: SessionState, role: "user" | "assistant") =>
  s.messages
    .filter((m) => m.role === role)
    .map((m) =>
      m.blocks
        .filter((b) => b.kind === "text")
        .map((b) => (b.kind === "text" ? b.text : ""))
        .join(""),
    );

describe("ACP normalizer on real captures", () => {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl"));

  it.each(files)("%s yields only valid canonical events and never throws", (file) => {
    const { events } = drive(file);
    for (const e of events) {
      const parsed = TimelineEventSchema.safeParse(e);
      if (!parsed.success) throw new Error(`${file}: ${JSON.stringify(e).slice(0, 200)} → ${parsed.error.message}`);
    }
  });

  it("copilot: a streamed reply builds one text block, with usage and the title from session_info_update", () => {
    const { state, events } = drive("copilot-acp-byok.jsonl");
    expect(texts(state, "user")).toEqual(["Say hello in five words."]);
    expect(texts(state, "assistant")).toEqual(["Hello from the mock model."]);
    expect(events.filter((e) => e.type === "block.delta").length).toBe(4);
    const assistant = state.messages.find((m) => m.role === "assistant")!;
    expect(assistant.completedAt).toBeDefined();
    expect(assistant.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(state.session!.title).toBe("Say hello in five words.");
    expect(state.session!.usage).toMatchObject({
      inputTokens: 10,
      outputTokens: 5,
      contextTokens: 8780,
      contextWindow: 64000,
    });
    const settings = state.session!.settings!;
    expect(settings.options.map((o) => o.id)).toEqual(["mode", "allow_all"]);
    expect(settings.commands!.length).toBeGreaterThan(20);
  });

  it("copilot: reasoning, a bash call behind a permission (request id 0), streamed output and exit code", () => {
    const { state, interrupts, events } = drive("copilot-acp-tool.jsonl");
    const [reasoning, text1, tool, text2] = state.messages.find((m) => m.role === "assistant")!.blocks;
    expect(reasoning).toMatchObject({ kind: "reasoning", text: "Thinking about it. Will run a tool." });
    expect(reasoning && reasoning.kind === "reasoning" && reasoning.endedAt).toBeGreaterThan(0);
    expect(text1).toMatchObject({ kind: "text", text: "Running a tool now." });
    expect(tool).toMatchObject({
      kind: "tool",
      tool: "bash",
      rawTool: "execute",
      status: "completed",
      output: "hi-from-tool\n",
      exitCode: 0,
      callId: "call_mock_1",
    });
    expect((tool as ToolBlock).input).toEqual({ command: "echo hi-from-tool", description: "echo test" });
    expect(text2).toMatchObject({ kind: "text", text: "Tool finished; done." });
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]).toMatchObject({
      id: "perm-0",
      kind: "permission",
      toolCallId: "call_mock_1",
      title: "echo test",
      permission: {
        action: "execute",
        patterns: ["echo hi-from-tool"],
        options: [
          { id: "allow_once", label: "Allow once", kind: "allow_once" },
          { id: "allow_always", label: "Always allow", kind: "allow_always" },
          { id: "reject_once", label: "Deny", kind: "reject" },
        ],
      },
    });
    // Each tool update here also changes the status, so each is a whole-block update (no output delta).
    expect(events.filter((e) => e.type === "block.updated" && e.block.kind === "tool").length).toBeGreaterThanOrEqual(
      3,
    );
    expect(state.interrupts).toHaveLength(0);
  });

  it("copilot: a file view is a read tool with its path and output", () => {
    const { state } = drive("copilot-acp-view.jsonl");
    const [t] = tools(state);
    expect(t).toMatchObject({
      tool: "read",
      status: "completed",
      output: "hello file\n",
      input: { path: "/workspace/project/note.txt" },
    });
  });

  it("copilot: cancel ends the turn as stopped", () => {
    const { state } = drive("copilot-acp-cancel.jsonl");
    const a = state.messages.find((m) => m.role === "assistant")!;
    expect(a.error).toEqual({ name: "Aborted", message: "Stopped", aborted: true });
    expect(texts(state, "assistant")).toEqual(["word0 "]);
  });

  it("copilot: config options and the mode switch are session settings", () => {
    const { state } = drive("copilot-acp-config.jsonl");
    const opts = state.session!.settings!.options;
    expect(opts.find((o) => o.id === "allow_all")).toMatchObject({
      source: "config",
      category: "permissions",
      value: "on",
      choices: [{ value: "on" }, { value: "off" }],
    });
    expect(opts.find((o) => o.id === "mode")).toMatchObject({
      value: "https://agentclientprotocol.com/protocol/session-modes#plan",
    });
    expect(tools(state)[0]).toMatchObject({ status: "completed", output: "auto-approved\n", exitCode: 0 });
  });

  it("copilot: session/load replays user, assistant text and tool into messages with stable ids", () => {
    const a = drive("copilot-acp-load.jsonl");
    const b = drive("copilot-acp-load.jsonl");
    expect(a.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(texts(a.state, "user")).toEqual(["Say hello in five words."]);
    expect(texts(a.state, "assistant")).toEqual(["Running a tool now.Tool finished; done."]);
    expect(tools(a.state)[0]).toMatchObject({ status: "completed", output: "hi-from-tool\n", exitCode: 0 });
    expect(a.state.messages.map((m) => m.id)).toEqual(b.state.messages.map((m) => m.id));
    expect(a.state.messages[0]!.createdAt).toBeLessThan(a.state.messages[1]!.createdAt);
    expect(a.state.session!.settings!.options.map((o) => o.id)).toEqual(["mode", "allow_all"]);
  });

  it("opencode: text by messageId, bash allowed, bash rejected (denied), reasoning, todos and a cancelled turn", () => {
    const { state, interrupts } = drive("opencode-acp.jsonl", { sessionId: "ses_dfec50037ffeN94hSr9UGm7IVm" });
    // the load at the end replaced the live timeline with the replay: check the replay
    expect(texts(state, "user")).toEqual([
      "hello over acp",
      "please use bash",
      "please use bash: echo rejected",
      "think about it",
      "use todo",
      "be slow",
    ]);
    expect(state.messages[0]!.id).toBe("msg_2013afff7001LveyaOmLe59r7J-u");
    const [bash, rejected, todo] = tools(state);
    expect(bash).toMatchObject({ tool: "bash", status: "completed", output: "hi\n", exitCode: 0, title: "echo hi" });
    expect(rejected).toMatchObject({
      tool: "bash",
      status: "denied",
      error: "The user rejected permission to use this specific tool call.",
    });
    expect(todo).toMatchObject({ tool: "todo", title: "2 todos", status: "completed" });
    expect(blocks(state).some((b) => b.kind === "reasoning" && b.text.startsWith("Let me think about this."))).toBe(
      true,
    );
    expect(interrupts.map((i) => i.id)).toEqual(["perm-0", "perm-1"]);
    expect(interrupts[0]!.permission!.options.map((o) => o.id)).toEqual(["once", "always", "reject"]);
    expect(state.todos).toHaveLength(2);
    expect(state.session!.settings!.options.map((o) => `${o.id}:${o.category}`)).toEqual([
      "model:model",
      "effort:thought_level",
      "mode:mode",
    ]);
    expect(state.session!.model).toEqual({ provider: "fake", id: "fake-model" });
  });

  it("opencode: the live turns (before the load) end with a stopped turn", () => {
    const frames = capture("opencode-acp.jsonl");
    // cut the capture before the session/load to check the live state
    const cut = frames.findIndex((f) => f.msg.method === "session/load");
    const tmp = path.join(import.meta.dirname, "fixtures", ".tmp-live.jsonl");
    fs.writeFileSync(
      tmp,
      frames
        .slice(0, cut)
        .map((f) => JSON.stringify({ dir: f.dir === "out" ? ">" : "<", msg: f.msg }))
        .join("\n"),
    );
    try {
      const { state } = drive(".tmp-live.jsonl", { sessionId: "ses_dfec50037ffeN94hSr9UGm7IVm" });
      const assistants = state.messages.filter((m) => m.role === "assistant");
      expect(assistants).toHaveLength(6);
      expect(assistants.at(-1)!.error).toMatchObject({ aborted: true });
      expect(assistants[0]!.usage).toEqual({ inputTokens: 2446, outputTokens: 12 });
      // an agent message id change inside one turn starts a new text block
      expect(assistants[1]!.blocks.map((b) => b.kind)).toEqual(["tool", "text"]);
      expect(texts(state, "assistant")[0]).toBe("Hello from the fake LLM! You said: hello over acp");
      expect(tools(state)[1]).toMatchObject({ status: "denied" });
    } finally {
      fs.rmSync(tmp);
    }
  });

  it("opencode: the question tool shows up as a question tool call", () => {
    const { state } = drive("opencode-acp-question-hangs.jsonl");
    expect(tools(state)[0]).toMatchObject({ tool: "question", status: "running" });
  });
});

describe("ACP normalizer units", () => {
  const session: Session = { id: "s1", backendId: "b", title: "t", createdAt: 0, updatedAt: 0, status: "idle" };

  it("maps tool kinds, and names for kind other", () => {
    expect(toolNameOf("execute", "x")).toBe("bash");
    expect(toolNameOf("search", "glob **/*.ts")).toBe("glob");
    expect(toolNameOf("search", "grep foo")).toBe("grep");
    expect(toolNameOf("other", "todowrite")).toBe("todo");
    expect(toolNameOf(undefined, "3 todos")).toBe("todo");
    expect(toolNameOf("other", "whatever")).toBe("other");
  });

  it("streams tool output as deltas when only the output grows", () => {
    const st = newSessionState(session);
    beginTurn(st, [{ type: "text", text: "go" }], 1);
    applyUpdate(
      st,
      {
        sessionUpdate: "tool_call",
        toolCallId: "c",
        kind: "execute",
        status: "in_progress",
        rawInput: { command: "seq 3" },
      },
      2,
    );
    const out = (text: string) => ({
      sessionUpdate: "tool_call_update",
      toolCallId: "c",
      content: [{ type: "content", content: { type: "text", text } }],
    });
    expect(applyUpdate(st, out("1\n"), 3)[0]).toMatchObject({ type: "block.updated" });
    expect(applyUpdate(st, out("1\n2\n"), 4)).toEqual([
      {
        type: "block.delta",
        messageId: expect.any(String),
        blockId: expect.any(String),
        field: "output",
        delta: "2\n",
      },
    ]);
  });

  it("merges tool updates: absent fields keep their value; diffs become edit input", () => {
    const a = mergeTool(
      undefined,
      { toolCallId: "c", kind: "edit", title: "Edit a.ts", status: "pending", rawInput: { path: "/a.ts" } },
      "m",
      1,
    );
    const b = mergeTool(
      a,
      { toolCallId: "c", status: "completed", content: [{ type: "diff", path: "/a.ts", oldText: "x", newText: "y" }] },
      "m",
      2,
    );
    expect(b).toMatchObject({
      tool: "edit",
      title: "Edit a.ts",
      status: "completed",
      endedAt: 2,
      input: { filePath: "/a.ts", path: "/a.ts", oldString: "x", newString: "y" },
    });
  });

  it("codex: a shell call's output and exit code come from its exec end event (rawOutput)", () => {
    const a = mergeTool(
      undefined,
      {
        toolCallId: "c",
        kind: "execute",
        title: "echo hi",
        status: "in_progress",
        rawInput: { command: ["/bin/bash", "-lc", "echo hi"] },
      },
      "m",
      1,
    );
    const b = mergeTool(
      a,
      {
        toolCallId: "c",
        status: "completed",
        rawOutput: {
          call_id: "c",
          command: ["/bin/bash", "-lc", "echo hi"],
          stdout: "hi\n",
          stderr: "",
          aggregated_output: "hi\n",
          exit_code: 0,
          formatted_output: "hi",
        },
      },
      "m",
      2,
    );
    expect(b).toMatchObject({ tool: "bash", status: "completed", output: "hi\n", exitCode: 0 });
  });

  it("ignores unknown and malformed updates", () => {
    const st = newSessionState(session);
    expect(applyUpdate(st, { sessionUpdate: "subagent_update" }, 1)).toEqual([]);
    expect(applyUpdate(st, null, 1)).toEqual([]);
    expect(applyUpdate(st, { sessionUpdate: "tool_call" }, 1)).toEqual([]);
    expect(applyUpdate(st, { sessionUpdate: "agent_message_chunk", content: { type: "image", data: "…" } }, 1)).toEqual(
      [],
    );
    expect(permissionRequest(st, { options: [] }, "p", 1)).toBeNull();
  });

  it("a failed turn fails its running tools and says why", () => {
    const st = newSessionState(session);
    const t = beginTurn(st, [{ type: "text", text: "go" }], 10);
    const ev = [
      ...t.events,
      ...applyUpdate(
        st,
        {
          sessionUpdate: "tool_call",
          toolCallId: "c1",
          kind: "execute",
          status: "in_progress",
          rawInput: { command: "sleep 9" },
        },
        11,
      ),
    ];
    const info: MessageInfo = { id: t.assistantId, sessionId: "s1", role: "assistant", createdAt: 11 };
    ev.push(
      ...failTurn(st, t.assistantId, info, { name: "AgentExited", message: "the agent was killed by SIGKILL" }, 20),
    );
    const state = applyAll({ ...emptyState, session }, ev);
    const a = state.messages[1]!;
    expect(a.error).toEqual({ name: "AgentExited", message: "the agent was killed by SIGKILL" });
    expect(a.blocks.map((b) => b.kind)).toEqual(["tool", "notice"]);
    expect(a.blocks[0]).toMatchObject({ status: "error" });
  });

  it("the mode block becomes an option when no config option is the mode; current_mode_update moves it", () => {
    const st = newSessionState(session);
    applySessionSetup(st, {
      modes: {
        currentModeId: "ask",
        availableModes: [
          { id: "ask", name: "Ask" },
          { id: "code", name: "Code" },
        ],
      },
    });
    const ev = applyUpdate(st, { sessionUpdate: "current_mode_update", currentModeId: "code" }, 1);
    expect(ev).toHaveLength(1);
    expect(st.session.settings!.options[0]).toMatchObject({ id: "mode", source: "mode", value: "code" });
    // the same update again changes nothing
    expect(applyUpdate(st, { sessionUpdate: "current_mode_update", currentModeId: "code" }, 2)).toEqual([]);
  });
});
