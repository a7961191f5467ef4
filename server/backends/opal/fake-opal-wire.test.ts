/**
 * The fake `opal-server` (e2e/fixtures/fake-opal.ts) speaks Opal's wire as ../shared/protocols/opal.md
 * describes it (framing, error codes, snake_case fields, event order, server→client requests, the
 * quirks): the adapter's tests, the conformance suite and the e2e tests rely on it being faithful.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../../e2e/fixtures/scripted-model";
import { until } from "@/lib/testing/until";

const OPAL = path.resolve(import.meta.dirname, "../../../e2e/fixtures/fake-opal-bin/opal-server");
type Frame = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

class Opal {
  frames: Frame[] = [];
  lines: string[] = [];
  exit: number | null | undefined;
  private child: ChildProcessWithoutNullStreams;
  private next = 1;
  constructor(env: Record<string, string>, cwd: string) {
    this.child = spawn(OPAL, [], { cwd, env: { ...process.env, ...env } });
    let buf = "";
    this.child.stdout.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        this.lines.push(line);
        this.frames.push(JSON.parse(line) as Frame);
      }
    });
    this.child.on("exit", (code) => (this.exit = code));
    this.child.stdin.on("error", () => {}); // a write racing the process's exit (EPIPE) is not the test's failure
  }
  send(msg: unknown) {
    this.child.stdin.write((typeof msg === "string" ? msg : JSON.stringify(msg)) + "\n");
  }
  async call(method: string, params?: Record<string, unknown>): Promise<Frame> {
    const id = this.next++;
    this.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    return until(() => this.frames.find((f) => f.id === id && !f.method), `the answer to ${method}`, 20_000);
  }
  events(sessionId: string, from = 0) {
    return this.frames.slice(from).filter((f) => f.method === "agent/event" && f.params?.session_id === sessionId).map((f) => f.params!);
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
  Array.isArray(v) ? v.flatMap(snakeKeys) : v && typeof v === "object" ? Object.entries(v).flatMap(([k, x]) => [k, ...snakeKeys(x)]) : [];

describe("fake opal-server: the wire of ../shared/protocols/opal.md", () => {
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
    expect(o.frames.find((f) => f.error?.code === -32700)).toMatchObject({ jsonrpc: "2.0", id: null, error: { message: "Parse error" } });
    o.send({ id: 5, method: "opal/ping" });
    await until(() => o.frames.find((f) => f.error?.code === -32600), "an invalid request");
    expect((await o.call("auth/set_key", {})).error).toMatchObject({ code: -32601, message: "Method not found: auth/set_key" });
    expect((await o.call("agent/prompt", {})).error).toMatchObject({ code: -32602, message: "Missing required params: session_id, text" });
    expect((await o.call("agent/abort", { session_id: "0".repeat(32) })).error).toMatchObject({ code: -32602, message: "Session not found" });
    const before = o.frames.length;
    o.send({ jsonrpc: "2.0", method: "opal/ping" });
    await o.call("opal/ping");
    expect(o.frames.length).toBe(before + 1);
    for (const l of o.lines) expect(l).not.toContain("\n");
    await o.close();
    expect(o.exit).toBe(0);
  });

  it("a prompt's events in §5 order, flat and snake_case; history with tool results; persistence and resume", async () => {
    model.reset();
    model.enqueue(
      { reasoning: "Think first.", text: "Running it.", toolCalls: [{ name: "bash", arguments: { command: "echo wire-marker" } }] },
      { text: "Done with the wire." },
    );
    const o = start();
    const st = (await o.call("session/start", { working_dir: cwd, session: true })).result!;
    expect(st).toMatchObject({ session_id: expect.stringMatching(/^[0-9a-f]{32}$/), context_files: [], available_skills: [], auth: { status: "ready", provider: "copilot" } });
    const sid = st.session_id as string;
    expect((await o.call("agent/prompt", { session_id: sid, text: "run the marker" })).result).toEqual({ queued: false });
    // Busy: the next prompt is queued.
    expect((await o.call("agent/prompt", { session_id: sid, text: "and then this" })).result).toEqual({ queued: true });
    await until(() => o.types(sid).includes("agent_end"), "agent_end", 20_000);
    const types = o.types(sid);
    expect(types.filter((t) => t !== "message_queued").slice(0, 3)).toEqual(["agent_start", "thinking_start", "thinking_delta"]);
    expect(types).not.toContain("thinking_end");
    const order = ["message_start", "message_delta", "usage_update", "turn_end", "tool_execution_start", "tool_output", "tool_execution_end"];
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
    expect(toolStart).toMatchObject({ tool: "bash", call_id: expect.any(String), args: { command: "echo wire-marker" }, meta: "Run `echo wire-marker`" });
    expect(evs.find((e) => e.type === "tool_execution_end")).toMatchObject({ call_id: toolStart.call_id, result: { ok: true, output: "wire-marker\n" } });
    expect(evs.find((e) => e.type === "agent_end")).toMatchObject({ usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number), context_window: expect.any(Number), current_context_tokens: expect.any(Number) } });
    for (const e of evs) for (const k of snakeKeys(e)) expect(k).toMatch(/^[a-z0-9_]+$/);
    const hist = (await o.call("session/history", { session_id: sid })).result!.messages as Record<string, unknown>[];
    expect(hist.map((m) => m.role)).toEqual(["user", "assistant", "tool_result", "user", "assistant"]);
    expect(hist[1]).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{16}$/), thinking: "Think first.", tool_calls: [{ call_id: toolStart.call_id, name: "bash", arguments: { command: "echo wire-marker" } }] });
    expect(hist[2]).toMatchObject({ role: "tool_result", call_id: toolStart.call_id, is_error: false });
    expect(hist[0]).not.toHaveProperty("parent_id");
    await o.close();

    // A new process resumes it by id.
    const o2 = start();
    const list = (await o2.call("session/list")).result!.sessions as { id: string; title: string | null; modified: string }[];
    const listed = list.find((s) => s.id === sid)!;
    expect(listed.modified).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+$/);
    expect(listed.title).toBe("run the marker");
    expect((await o2.call("session/start", { session_id: sid })).result!.session_id).toBe(sid);
    expect(((await o2.call("session/history", { session_id: sid })).result!.messages as unknown[]).length).toBe(5);
    // Branch back to the first reply: the path ends there; unknown entry → -32603.
    expect((await o2.call("session/branch", { session_id: sid, entry_id: hist[2]!.id })).result).toEqual({});
    expect(((await o2.call("session/history", { session_id: sid })).result!.messages as unknown[]).length).toBe(3);
    expect((await o2.call("session/branch", { session_id: sid, entry_id: "nope" })).error).toMatchObject({ code: -32603, message: "Branch failed", data: ":not_found" });
    // Quirk 2: delete never finds a real session.
    expect((await o2.call("session/delete", { session_id: sid })).error).toMatchObject({ code: -32602, message: "Session not found" });
    await o2.close();
  });

  it("asks with s2c ids and waits; tasks; sub-agent events wrapped; abort", async () => {
    model.reset();
    model.enqueue(
      { toolCalls: [{ name: "ask_user", arguments: { question: "Which DB?", choices: ["pg", "sqlite"] } }] },
      { toolCalls: [{ name: "tasks", arguments: { action: "insert", items: [{ label: "Write schema" }, { label: "Migrate" }] } }] },
      { toolCalls: [{ name: "sub_agent", arguments: { prompt: "look around", label: "scout" } }] },
      { text: "Scouted." },
      { text: "All done." },
    );
    const o = start();
    const sid = (await o.call("session/start", { working_dir: cwd, session: true })).result!.session_id as string;
    await o.call("agent/prompt", { session_id: sid, text: "plan it" });
    const ask = await until(() => o.frames.find((f) => f.method === "client/ask_user"), "client/ask_user", 20_000);
    expect(ask).toMatchObject({ id: expect.stringMatching(/^s2c-\d+$/), params: { session_id: sid, question: "Which DB?", choices: ["pg", "sqlite"] } });
    o.send({ jsonrpc: "2.0", id: ask.id, result: { answer: "pg" } });
    await until(() => o.types(sid).includes("agent_end"), "agent_end", 20_000);
    const evs = o.events(sid);
    const taskEnd = evs.find((e) => e.type === "tool_execution_end" && e.tool === "tasks")!;
    expect((taskEnd.result as { output: Record<string, unknown> }).output).toMatchObject({ kind: "tasks", action: "insert", total: 2, counts: { open: 2, in_progress: 0, done: 0, blocked: 0 } });
    const tasks = (await o.call("tasks/list", { session_id: sid })).result!.tasks as Record<string, unknown>[];
    expect(tasks).toHaveLength(2);
    for (const t of tasks) for (const v of Object.values(t)) expect(typeof v).toBe("string");
    const subs = evs.filter((e) => e.type === "sub_agent_event");
    const subStart = evs.find((e) => e.type === "tool_execution_start" && e.tool === "sub_agent")!;
    expect(subs[0]).toMatchObject({ parent_call_id: subStart.call_id, sub_session_id: expect.any(String), inner: { type: "sub_agent_start", label: "scout" } });
    expect(subs.map((s) => (s.inner as { type: string }).type)).toEqual(expect.arrayContaining(["agent_start", "message_delta", "agent_end"]));
    expect(evs.find((e) => e.type === "unknown")).toMatchObject({ raw: expect.stringMatching(/^\{:title_generated/) });

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
    expect((await o.call("session/start", { working_dir: cwd })).result!.auth).toEqual({ status: "setup_required", provider: null });
    const login = (await o.call("auth/login")).result!;
    expect(login).toMatchObject({ user_code: expect.any(String), verification_uri: "https://github.com/login/device", device_code: expect.any(String), interval: expect.any(Number) });
    expect((await o.call("auth/poll", { device_code: login.device_code, interval: login.interval })).result).toEqual({ authenticated: true });
    expect((await o.call("auth/status")).result).toEqual({ authenticated: true, auth: { status: "ready", provider: "copilot" } });
    await o.close();
    fs.rmSync(bare, { recursive: true, force: true });
  });
});
