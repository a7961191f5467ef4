/**
 * The fake `opal-server` (testkit/fake-opal.ts) behaves as Opal's source does (matteing/opal at
 * the commit docs/backends/opal.md names: `opal/lib/opal/rpc/server.ex`, `agent/agent.ex`,
 * `diff.ex`, the tools): framing, error codes, snake_case fields, event order, server→client
 * requests, one request at a time, errors without `agent_end`, the quirks. The adapter's tests,
 * the conformance suite and the e2e tests rely on it being faithful.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../../testkit/scripted-model";
import { until } from "@/testkit/until";
import { onLines } from "../../../testkit/adapter-harness";

const OPAL = path.resolve(import.meta.dirname, "../../../testkit/fake-opal-bin/opal-server");
type Frame = Record<string, unknown> & {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

class Opal {
  frames: Frame[] = [];
  lines: string[] = [];
  exit: number | null | undefined;
  private child: ChildProcessWithoutNullStreams;
  private next = 1;
  constructor(env: Record<string, string>, cwd: string) {
    this.child = spawn(OPAL, [], { cwd, env: { ...process.env, ...env } });
    onLines(this.child.stdout, (line) => {
      this.lines.push(line);
      this.frames.push(JSON.parse(line) as Frame);
    });
    this.child.on("exit", (code) => (this.exit = code));
    this.child.stdin.on("error", () => {}); // a write racing the process's exit (EPIPE) is not the test's failure
  }
  send(msg: unknown) {
    this.child.stdin.write(`${typeof msg === "string" ? msg : JSON.stringify(msg)}\n`);
  }
  async call(method: string, params?: Record<string, unknown>): Promise<Frame> {
    const id = this.next++;
    this.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    return until(() => this.frames.find((f) => f.id === id && !f.method), `the answer to ${method}`, 20_000);
  }
  events(sessionId: string, from = 0) {
    return this.frames
      .slice(from)
      .filter((f) => f.method === "agent/event" && f.params?.session_id === sessionId)
      .map((f) => f.params!);
  }
  types(sessionId: string, from = 0) {
    return this.events(sessionId, from).map((e) => e.type);
  }
  async close() {
    this.child.stdin.end();
    await until(() => this.exit !== undefined, "the fake to exit on EOF", 10_000);
  }
}

const snakeKeys = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.flatMap(snakeKeys)
    : v && typeof v === "object"
      ? Object.entries(v).flatMap(([k, x]) => [k, ...snakeKeys(x)])
      : [];

describe("fake opal-server: Opal's wire and behaviour (rpc/server.ex, agent/agent.ex)", () => {
  let model: ScriptedModel;
  let home: string;
  let cwd: string;
  const open: Opal[] = [];
  const start = (env: Record<string, string> = {}) => {
    const o = new Opal({ OPAL_HOME: home, OPAL_MODEL_URL: model.url, ...env }, cwd);
    open.push(o);
    return o;
  };

  beforeAll(async () => {
    model = await startScriptedModel();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "fake-opal-home-"));
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "fake-opal-cwd-"));
    fs.writeFileSync(path.join(home, "auth.json"), "{}");
  });
  afterAll(async () => {
    for (const o of open) if (o.exit === undefined) await o.close().catch(() => undefined);
    await model.close();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it("frames: one JSON-RPC object per line, standard error codes, notifications ignored, EOF stops it", async () => {
    const o = start();
    expect((await o.call("opal/version")).result).toEqual({ server_version: "0.2.0", protocol_version: "0.1.0" });
    o.send("not json");
    await until(() => o.frames.find((f) => f.error?.code === -32700), "a parse error");
    expect(o.frames.find((f) => f.error?.code === -32700)).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { message: "Parse error" },
    });
    o.send({ id: 5, method: "opal/ping" });
    await until(() => o.frames.find((f) => f.error?.code === -32600), "an invalid request");
    expect((await o.call("opal/nope", {})).error).toMatchObject({
      code: -32601,
      message: "Method not found: opal/nope",
    });
    expect((await o.call("auth/set_key", {})).error).toMatchObject({
      code: -32602,
      message: "Missing required params: provider, api_key",
    });
    expect((await o.call("agent/prompt", {})).error).toMatchObject({
      code: -32602,
      message: "Missing required params: session_id, text",
    });
    expect((await o.call("agent/abort", { session_id: "0".repeat(32) })).error).toMatchObject({
      code: -32602,
      message: "Session not found",
    });
    const before = o.frames.length;
    o.send({ jsonrpc: "2.0", method: "opal/ping" });
    await o.call("opal/ping");
    expect(o.frames.length).toBe(before + 1);
    for (const l of o.lines) expect(l).not.toContain("\n");
    await o.close();
    expect(o.exit).toBe(0);
  });

  it("a prompt's events in agent.ex's order, flat and snake_case; history with tool results; persistence and resume", async () => {
    model.reset();
    model.enqueue(
      {
        reasoning: "Think first.",
        text: "<title>Run the marker</title>Running it.",
        toolCalls: [{ name: "bash", arguments: { command: "echo wire-marker" } }],
      },
      { text: "Done with the wire." },
    );
    const o = start();
    const st = (await o.call("session/start", { working_dir: cwd, session: true })).result!;
    expect(st).toMatchObject({
      session_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      context_files: [],
      available_skills: [],
      auth: { status: "ready", provider: "copilot" },
    });
    const sid = st.session_id as string;
    expect((await o.call("agent/prompt", { session_id: sid, text: "run the marker" })).result).toEqual({
      queued: false,
    });
    // Busy: the next prompt is queued.
    expect((await o.call("agent/prompt", { session_id: sid, text: "and then this" })).result).toEqual({ queued: true });
    await until(() => o.types(sid).includes("agent_end"), "agent_end", 20_000);
    const types = o.types(sid);
    // agent.ex idle/3: the prompt is applied, then the run starts; each model call is bracketed by request_start / request_end.
    expect(types.filter((t) => t !== "message_queued").slice(0, 5)).toEqual([
      "message_applied",
      "agent_start",
      "unknown",
      "unknown",
      "thinking_start",
    ]);
    expect(
      o
        .events(sid)
        .filter((e) => e.type === "unknown")
        .slice(0, 2)
        .map((e) => e.raw),
    ).toEqual(['{:request_start, %{messages: 2, model: "fake-model"}}', "{:request_end}"]);
    expect(
      o
        .events(sid)
        .filter((e) => e.type === "message_delta")
        .map((e) => e.delta)
        .join(""),
    ).not.toContain("<title>");
    expect(types).not.toContain("thinking_end");
    const order = [
      "message_start",
      "message_delta",
      "usage_update",
      "turn_end",
      "tool_execution_start",
      "tool_output",
      "tool_execution_end",
    ];
    let at = 0;
    for (const t of order) {
      const i = types.indexOf(t, at);
      expect(i, t).toBeGreaterThanOrEqual(at);
      at = i;
    }
    expect(types).toContain("message_queued");
    expect(types).toContain("message_applied");
    const evs = o.events(sid);
    const toolStart = evs.find((e) => e.type === "tool_execution_start")!;
    expect(toolStart).toMatchObject({
      tool: "bash",
      call_id: expect.any(String),
      args: { command: "echo wire-marker" },
      meta: "Run `echo wire-marker`",
    });
    expect(evs.find((e) => e.type === "tool_execution_end")).toMatchObject({
      call_id: toolStart.call_id,
      result: { ok: true, output: "wire-marker\n" },
    });
    expect(evs.find((e) => e.type === "agent_end")).toMatchObject({
      usage: {
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
        context_window: expect.any(Number),
        current_context_tokens: expect.any(Number),
      },
    });
    for (const e of evs) for (const k of snakeKeys(e)) expect(k).toMatch(/^[a-z0-9_]+$/);
    const hist = (await o.call("session/history", { session_id: sid })).result!.messages as Record<string, unknown>[];
    // The queued prompt is applied when the model stops calling tools (tool_runner.ex drain_pending).
    expect(hist.map((m) => m.role)).toEqual(["user", "assistant", "tool_result", "assistant", "user", "assistant"]);
    expect(hist[1]).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      thinking: "Think first.",
      tool_calls: [{ call_id: toolStart.call_id, name: "bash", arguments: { command: "echo wire-marker" } }],
    });
    expect(hist[2]).toMatchObject({ role: "tool_result", call_id: toolStart.call_id, is_error: false });
    expect(hist[0]).not.toHaveProperty("parent_id");
    await o.close();

    // A new process resumes it by id.
    const o2 = start();
    const list = (await o2.call("session/list")).result!.sessions as {
      id: string;
      title: string | null;
      modified: string;
    }[];
    const listed = list.find((s) => s.id === sid)!;
    expect(listed.modified).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+$/);
    expect(listed.title).toBe("Run the marker");
    expect((await o2.call("session/start", { session_id: sid })).result!.session_id).toBe(sid);
    expect(((await o2.call("session/history", { session_id: sid })).result!.messages as unknown[]).length).toBe(6);
    // Branch back to the first reply: the path ends there; unknown entry → -32603.
    expect((await o2.call("session/branch", { session_id: sid, entry_id: hist[2]!.id })).result).toEqual({});
    expect(((await o2.call("session/history", { session_id: sid })).result!.messages as unknown[]).length).toBe(3);
    expect((await o2.call("session/branch", { session_id: sid, entry_id: "nope" })).error).toMatchObject({
      code: -32603,
      message: "Branch failed",
      data: ":not_found",
    });
    // Quirk 2: delete never finds a real session.
    expect((await o2.call("session/delete", { session_id: sid })).error).toMatchObject({
      code: -32602,
      message: "Session not found",
    });
    await o2.close();
  });

  it("asks with s2c ids and waits; tasks; sub-agent events wrapped; abort", async () => {
    model.reset();
    model.enqueue(
      { toolCalls: [{ name: "ask_user", arguments: { question: "Which DB?", choices: ["pg", "sqlite"] } }] },
      {
        toolCalls: [
          {
            name: "tasks",
            arguments: {
              action: "batch",
              ops: [
                { action: "insert", label: "Write schema" },
                { action: "insert", label: "Migrate" },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: "sub_agent", arguments: { prompt: "look around", label: "scout" } }] },
      { text: "Scouted." },
      { text: "All done." },
    );
    const o = start();
    const sid = (await o.call("session/start", { working_dir: cwd, session: true })).result!.session_id as string;
    await o.call("agent/prompt", { session_id: sid, text: "plan it" });
    const ask = await until(() => o.frames.find((f) => f.method === "client/ask_user"), "client/ask_user", 20_000);
    expect(ask).toMatchObject({
      id: expect.stringMatching(/^s2c-\d+$/),
      params: { session_id: sid, question: "Which DB?", choices: ["pg", "sqlite"] },
    });
    o.send({ jsonrpc: "2.0", id: ask.id, result: { answer: "pg" } });
    await until(() => o.types(sid).includes("agent_end"), "agent_end", 20_000);
    const evs = o.events(sid);
    const taskEnd = evs.find((e) => e.type === "tool_execution_end" && e.tool === "tasks")!;
    expect((taskEnd.result as { output: Record<string, unknown> }).output).toMatchObject({
      kind: "tasks",
      action: "batch",
      total: 2,
      counts: { open: 2, in_progress: 0, done: 0, blocked: 0 },
    });
    const tasks = (await o.call("tasks/list", { session_id: sid })).result!.tasks as Record<string, unknown>[];
    expect(tasks).toHaveLength(2);
    for (const t of tasks) for (const v of Object.values(t)) expect(typeof v).toBe("string");
    const subs = evs.filter((e) => e.type === "sub_agent_event");
    const subStart = evs.find((e) => e.type === "tool_execution_start" && e.tool === "sub_agent")!;
    expect(subs[0]).toMatchObject({
      parent_call_id: subStart.call_id,
      sub_session_id: expect.any(String),
      inner: { type: "sub_agent_start", label: "look around" },
    });
    expect(subs.map((s) => (s.inner as { type: string }).type)).toEqual(
      expect.arrayContaining(["agent_start", "message_delta", "agent_end"]),
    );

    model.enqueue({ text: Array.from({ length: 30 }, (_, i) => `slow${i}`).join(" "), chunks: 30, delayMs: 100 });
    const from = o.frames.length;
    await o.call("agent/prompt", { session_id: sid, text: "go slowly" });
    await until(() => o.types(sid, from).includes("message_delta"), "some text");
    expect((await o.call("agent/abort", { session_id: sid })).result).toEqual({});
    await until(() => o.types(sid, from).includes("agent_abort"), "agent_abort");
    expect(o.types(sid, from)).not.toContain("agent_end");
    await o.close();
  });

  it("without auth.json: setup_required, then the device flow", async () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), "fake-opal-bare-"));
    const o = new Opal({ OPAL_HOME: bare, OPAL_MODEL_URL: model.url }, cwd);
    open.push(o);
    expect((await o.call("session/start", { working_dir: cwd })).result!.auth).toMatchObject({
      status: "setup_required",
      provider: null,
      providers: expect.arrayContaining([
        expect.objectContaining({ id: "copilot", method: "device_code", ready: false }),
      ]),
    });
    const login = (await o.call("auth/login")).result!;
    expect(login).toMatchObject({
      user_code: expect.any(String),
      verification_uri: "https://github.com/login/device",
      device_code: expect.any(String),
      interval: expect.any(Number),
    });
    expect((await o.call("auth/poll", { device_code: login.device_code, interval: login.interval })).result).toEqual({
      authenticated: true,
    });
    expect((await o.call("auth/status")).result).toMatchObject({
      authenticated: true,
      auth: { status: "ready", provider: "copilot" },
    });
    await o.close();
    fs.rmSync(bare, { recursive: true, force: true });
  });

  it("a provider error: `error` with the inspected reason, then idle without agent_end; the next prompt runs", async () => {
    model.reset();
    model.enqueue({ error: { status: 500, message: "upstream exploded" } }, { text: "Fine again." });
    const o = start();
    const sid = (await o.call("session/start", { working_dir: cwd, session: true })).result!.session_id as string;
    await o.call("agent/prompt", { session_id: sid, text: "fail please" });
    const err = await until(() => o.events(sid).find((e) => e.type === "error"), "the error event", 20_000);
    expect(err.reason).toBe('%{"code" => nil, "message" => "upstream exploded", "type" => "server_error"}');
    expect((await o.call("agent/state", { session_id: sid })).result).toMatchObject({ status: "idle" });
    expect(o.types(sid)).not.toContain("agent_end");
    expect((await o.call("agent/prompt", { session_id: sid, text: "again" })).result).toEqual({ queued: false });
    await until(() => o.types(sid).includes("agent_end"), "the next run's agent_end", 20_000);
    await o.close();
  });

  it("a failing tool's error is Elixir-quoted; edit_file and write_file report diff.ex's structured diff", async () => {
    model.reset();
    fs.writeFileSync(path.join(cwd, "edit-me.txt"), "alpha\nbeta\ngamma\n");
    const { lineHash } = await import("../../../testkit/fake-opal-agent");
    model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command: "echo out; exit 3" } }] },
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "edit-me.txt", start: `2:${lineHash("beta")}`, new_string: "BETA" } },
        ],
      },
      { toolCalls: [{ name: "write_file", arguments: { path: "new-file.txt", content: "one\n" } }] },
      { text: "Edited." },
    );
    const o = start();
    const sid = (await o.call("session/start", { working_dir: cwd, session: true })).result!.session_id as string;
    await o.call("agent/prompt", { session_id: sid, text: "edit it" });
    await until(() => o.types(sid).includes("agent_end"), "agent_end", 20_000);
    const ends = o.events(sid).filter((e) => e.type === "tool_execution_end");
    expect(ends[0]!.result).toEqual({ ok: false, error: '"Command exited with status 3\\nout\\n"' });
    expect(ends[1]!.result).toMatchObject({
      ok: true,
      meta: {
        diff: {
          path: "edit-me.txt",
          lines_added: 1,
          lines_removed: 1,
          hunks: [
            {
              old_start: 1,
              new_start: 1,
              lines: [
                { op: "eq", old_no: 1, new_no: 1, text: "alpha" },
                { op: "del", old_no: 2, text: "beta" },
                { op: "ins", new_no: 2, text: "BETA" },
                { op: "eq", old_no: 3, new_no: 3, text: "gamma" },
                { op: "eq", old_no: 4, new_no: 4, text: "" },
              ],
            },
          ],
        },
      },
    });
    expect(ends[2]!.result).toMatchObject({
      ok: true,
      meta: { diff: { path: "new-file.txt", lines_added: 1, lines_removed: 0 } },
    });
    expect(fs.readFileSync(path.join(cwd, "edit-me.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    await o.close();
  });

  it("session/compact ignores keep_recent ≤ 0 (the 20,000-token default keeps a small session whole); 1 compacts it", async () => {
    model.reset();
    model.enqueue({ text: "First." }, { text: "Second." });
    const o = start();
    const sid = (await o.call("session/start", { working_dir: cwd, session: true })).result!.session_id as string;
    for (const text of ["one", "two"]) {
      const from = o.frames.length;
      await o.call("agent/prompt", { session_id: sid, text });
      await until(() => o.types(sid, from).includes("agent_end"), "agent_end", 20_000);
    }
    const history = async () =>
      (await o.call("session/history", { session_id: sid })).result!.messages as { role: string; content: string }[];
    expect((await o.call("session/compact", { session_id: sid, keep_recent: 0 })).result).toEqual({});
    expect(await history()).toHaveLength(4);
    expect((await o.call("session/compact", { session_id: sid, keep_recent: 1 })).result).toEqual({});
    const h = await history();
    expect(h[0]!.content).toMatch(/^\[Conversation summary — older messages were compacted\]/);
    expect(h).toHaveLength(2);
    await o.close();
  });

  it("model/set resets thinking unless given; a resumed session runs the default model; one request at a time (auth/poll holds the rest)", async () => {
    const o = start();
    const sid = (await o.call("session/start", { working_dir: cwd, session: true })).result!.session_id as string;
    await o.call("thinking/set", { session_id: sid, level: "high" });
    expect((await o.call("model/set", { session_id: sid, model_id: "fake-model-2" })).result).toEqual({
      model: { provider: "copilot", id: "fake-model-2", thinking_level: "off" },
    });
    expect(
      (await o.call("model/set", { session_id: sid, model_id: "fake-model-2", thinking_level: "low" })).result,
    ).toMatchObject({ model: { thinking_level: "low" } });
    await o.close();
    const o1 = start();
    await o1.call("session/start", { session_id: sid });
    expect((await o1.call("agent/state", { session_id: sid })).result).toMatchObject({
      model: { id: "fake-model", thinking_level: "off" },
    });
    await o1.close();
    const o2 = start({ FAKE_OPAL_POLL_MS: "1500" });
    await o2.call("session/start", { session_id: sid, model: { id: "fake-model-2", thinking_level: "low" } });
    expect((await o2.call("agent/state", { session_id: sid })).result).toMatchObject({
      model: { id: "fake-model-2", thinking_level: "low" },
    });
    // auth/poll blocks the server: a ping sent after it is answered only after the poll.
    o2.send({ jsonrpc: "2.0", id: 900, method: "auth/poll", params: { device_code: "x", interval: 1 } });
    const ping = await o2.call("opal/ping");
    const order = o2.frames.filter((f) => f.id === 900 || f.id === ping.id).map((f) => f.id);
    expect(order).toEqual([900, ping.id]);
    await o2.close();
  });

  it("API-key providers: auth/set_key saves the key; auth/status then reports the provider ready", async () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), "fake-opal-key-"));
    const o = new Opal({ OPAL_HOME: bare, OPAL_MODEL_URL: model.url }, cwd);
    open.push(o);
    expect((await o.call("auth/status")).result).toMatchObject({
      authenticated: false,
      auth: { status: "setup_required" },
    });
    expect((await o.call("auth/set_key", { provider: "anthropic", api_key: "sk-ant-test" })).result).toEqual({
      ok: true,
    });
    const st = (await o.call("auth/status")).result!;
    expect(st).toMatchObject({ authenticated: true, auth: { status: "ready", provider: "anthropic" } });
    expect(JSON.parse(fs.readFileSync(path.join(bare, "settings.json"), "utf8"))).toEqual({
      anthropic_api_key: "sk-ant-test",
    });
    await o.close();
    fs.rmSync(bare, { recursive: true, force: true });
  });
});
