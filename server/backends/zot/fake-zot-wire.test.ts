/**
 * The fake `zot rpc` (testkit/fake-zot.ts) speaks zot's wire as zot's RPC document describes
 * it (docs/rpc.md of patriceckhart/zot, at the commit docs/backends/zot.md names; its examples kept
 * here as literal frames), and only the events it lists, but for the optional argument streaming
 * (`FAKE_ZOT_STREAM_TOOL_ARGS=1`, tested both ways): the tests of the adapter, the conformance
 * suite and the e2e tests rely on it being faithful.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../../testkit/scripted-model";
import { until } from "@/testkit/until";
import { onLines } from "../../../testkit/adapter-harness";

const ZOT = path.resolve(import.meta.dirname, "../../../testkit/fake-zot-bin/zot");
type Frame = Record<string, unknown>;

class Zot {
  frames: Frame[] = [];
  stderr = "";
  exit: number | null | undefined;
  private child: ChildProcessWithoutNullStreams;
  constructor(args: string[], env: Record<string, string>, cwd: string) {
    this.child = spawn(ZOT, ["rpc", ...args, "--cwd", cwd], { cwd, env: { ...process.env, ...env } });
    onLines(this.child.stdout, (line) => this.frames.push(JSON.parse(line) as Frame));
    this.child.stderr.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.child.on("exit", (code) => (this.exit = code));
    // Some tests write to a process that is exiting on purpose (a wrong token): the pipe may be
    // closed under the write (EPIPE), which is what those tests expect, not an error of the run.
    this.child.stdin.on("error", () => {});
  }
  send(cmd: Frame | string) {
    this.child.stdin.write(`${typeof cmd === "string" ? cmd : JSON.stringify(cmd)}\n`);
  }
  response(id: string) {
    return until(() => this.frames.find((f) => f.type === "response" && f.id === id), `the response to ${id}`, 20_000);
  }
  async ask(cmd: Frame & { id: string }) {
    this.send(cmd);
    return this.response(cmd.id);
  }
  /** Event types (not responses) from index `from`. */
  types(from = 0) {
    return this.frames
      .slice(from)
      .filter((f) => f.type !== "response")
      .map((f) => f.type);
  }
  doneCount() {
    return this.frames.filter((f) => f.type === "done").length;
  }
  async close() {
    this.child.stdin.end();
    await until(() => this.exit !== undefined, "the fake to exit", 10_000).catch(() => this.child.kill("SIGKILL"));
  }
}

describe("fake zot rpc: the wire of zot's RPC document (docs/rpc.md)", () => {
  let model: ScriptedModel;
  let cwd: string;
  const open: Zot[] = [];
  const start = (opts: { token?: string; env?: Record<string, string>; args?: string[] } = {}) => {
    const z = new Zot(
      opts.args ?? ["--provider", "openai", "--base-url", model.url, "--model", "fake-model"],
      { OPENAI_API_KEY: "sk-test", ...(opts.token ? { ZOTCORE_RPC_TOKEN: opts.token } : {}), ...opts.env },
      cwd,
    );
    open.push(z);
    return z;
  };

  beforeAll(async () => {
    model = await startScriptedModel();
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "fake-zot-")));
  });
  afterAll(async () => {
    await Promise.all(open.map((z) => z.close()));
    await model.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it("hello with the token, auth required before it; responses echo ids and commands", async () => {
    const z = start({ token: "t0k" });
    expect(await z.ask({ id: "0", type: "ping" })).toEqual({
      type: "response",
      id: "0",
      command: "ping",
      success: false,
      error: "auth required: send hello with token first",
    });
    const hello = await z.ask({ id: "1", type: "hello", token: "t0k" });
    expect(hello).toEqual({
      type: "response",
      id: "1",
      command: "hello",
      success: true,
      data: { protocol_version: 1, version: expect.any(String), provider: "openai", model: "fake-model" },
    });
    expect(await z.ask({ id: "9", type: "ping" })).toEqual({
      type: "response",
      id: "9",
      command: "ping",
      success: true,
      data: { pong: true },
    });
    // without an id the response has none; malformed JSON answers with empty id and command
    z.send({ type: "ping" });
    z.send("{not json");
    z.send({ id: 7, type: "ping" });
    z.send({ id: "u", type: "frobnicate" });
    await z.response("u");
    const rest = z.frames.slice(-4);
    expect(rest[0]).toEqual({ type: "response", command: "ping", success: true, data: { pong: true } });
    expect(rest[1]).toMatchObject({
      type: "response",
      command: "",
      success: false,
      error: expect.stringMatching(/^malformed json: /),
    });
    expect(rest[1]).not.toHaveProperty("id");
    expect(rest[2]).toMatchObject({
      type: "response",
      command: "",
      success: false,
      error: expect.stringMatching(/^malformed json: .*string/),
    });
    expect(rest[3]).toEqual({
      type: "response",
      id: "u",
      command: "frobnicate",
      success: false,
      error: "unknown command",
    });
  });

  it("a wrong token gets `invalid token` and the process exits 1", async () => {
    const z = start({ token: "right" });
    expect(await z.ask({ id: "1", type: "hello", token: "wrong" })).toEqual({
      type: "response",
      id: "1",
      command: "hello",
      success: false,
      error: "invalid token",
    });
    z.send({ id: "2", type: "ping" });
    await until(() => z.exit !== undefined, "the exit");
    expect(z.exit).toBe(1);
    expect(z.stderr).toContain("zot: rpc: bad auth token");
    expect(z.frames.some((f) => f.id === "2")).toBe(false);
  });

  it("no credential: exit 1 with `zot: no credential for <provider>`", async () => {
    const z = new Zot(["--provider", "openai"], { OPENAI_API_KEY: "" }, cwd);
    await until(() => z.exit !== undefined, "the exit");
    expect(z.exit).toBe(1);
    expect(z.stderr).toContain("zot: no credential for openai");
  });

  it("only the document's events by default: a tool call is its tool_call, no argument streaming", async () => {
    model.enqueue(
      { text: "Let me look.", toolCalls: [{ name: "bash", arguments: { command: "echo plain-marker" } }] },
      { text: "Plain." },
    );
    const z = start();
    await z.ask({ id: "1", type: "prompt", message: "run it plainly" });
    await until(() => z.doneCount() === 1, "done");
    const documented = [
      "response",
      "turn_start",
      "user_message",
      "assistant_start",
      "text_delta",
      "tool_call",
      "tool_progress",
      "tool_result",
      "assistant_message",
      "usage",
      "turn_end",
      "done",
      "error",
      "compact_done",
    ];
    expect(z.frames.map((f) => String(f.type)).filter((t) => !documented.includes(t))).toEqual([]);
    expect(z.frames.find((f) => f.type === "tool_call")).toEqual({
      type: "tool_call",
      id: expect.any(String),
      name: "bash",
      args: { command: "echo plain-marker" },
    });
  });

  it("a non-fatal error in the middle of a reply: the reply goes on to its end and one done", async () => {
    model.enqueue({ text: "First half, second half.", chunks: 4 });
    const z = start();
    await z.ask({ id: "1", type: "prompt", message: "answer despite zot-nonfatal-error" });
    await until(() => z.doneCount() === 1, "done");
    const types = z.types();
    const err = types.indexOf("error");
    expect(err).toBeGreaterThan(types.indexOf("text_delta"));
    expect(types.slice(err + 1)).toContain("text_delta");
    expect(z.frames.filter((f) => f.type === "turn_end").map((f) => f.stop)).toEqual(["end_turn"]);
    expect(
      z.frames
        .filter((f) => f.type === "text_delta")
        .map((f) => f.delta)
        .join(""),
    ).toBe("First half, second half.");
  });

  it("a prompt with one tool call: the run loop's order, arguments streamed (FAKE_ZOT_STREAM_TOOL_ARGS), one done; get_messages holds the run", async () => {
    model.enqueue(
      { text: "Let me look.", toolCalls: [{ name: "bash", arguments: { command: "echo wire-marker" } }] },
      { text: "It printed the marker." },
    );
    const z = start({ env: { FAKE_ZOT_STREAM_TOOL_ARGS: "1" } });
    const r = await z.ask({ id: "1", type: "prompt", message: "run the marker" });
    expect(r).toEqual({ type: "response", id: "1", command: "prompt", success: true, data: { started: true } });
    await until(() => z.doneCount() === 1, "done");
    const types = z.types();
    // collapse repeats: text_delta…, tool_use_args…
    const collapsed = types.filter((t, i) => t !== types[i - 1]);
    expect(collapsed).toEqual([
      "user_message",
      "turn_start",
      "assistant_start",
      "text_delta",
      "tool_use_start",
      "tool_use_args",
      "tool_use_end",
      "usage",
      "assistant_message",
      "tool_call",
      "turn_end",
      "tool_progress",
      "tool_result",
      "turn_start",
      "assistant_start",
      "text_delta",
      "usage",
      "assistant_message",
      "turn_end",
      "done",
    ]);
    const ev = (t: string) => z.frames.filter((f) => f.type === t);
    expect(ev("turn_start").map((f) => f.step)).toEqual([1, 2]);
    expect(ev("turn_end").map((f) => f.stop)).toEqual(["tool_use", "end_turn"]);
    const call = ev("tool_call")[0]!;
    expect(call).toEqual({
      type: "tool_call",
      id: expect.any(String),
      name: "bash",
      args: { command: "echo wire-marker" },
    });
    expect(ev("tool_use_start")[0]).toEqual({ type: "tool_use_start", id: call.id, name: "bash" });
    expect(
      ev("tool_use_args")
        .map((f) => f.delta)
        .join(""),
    ).toBe(JSON.stringify({ command: "echo wire-marker" }));
    expect(ev("tool_progress")[0]).toEqual({ type: "tool_progress", id: call.id, text: "wire-marker\n" });
    expect(ev("tool_result")[0]).toEqual({
      type: "tool_result",
      id: call.id,
      is_error: false,
      content: [{ type: "text", text: "wire-marker\n[exit 0]" }],
    });
    const [u1, u2] = ev("usage");
    expect(u1).toEqual({
      type: "usage",
      input: expect.any(Number),
      output: expect.any(Number),
      cache_read: 0,
      cache_write: 0,
      cost_usd: expect.any(Number),
      reasoning: null,
      cumulative: expect.objectContaining({ input: u1!.input }),
    });
    expect((u2!.cumulative as Frame).input).toBe((u1!.input as number) + (u2!.input as number));
    expect(ev("user_message")[0]).toEqual({
      type: "user_message",
      content: [{ type: "text", text: "run the marker" }],
      time: expect.any(String),
    });
    expect(ev("assistant_message")[0]).toMatchObject({
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_call", id: call.id, name: "bash", args: { command: "echo wire-marker" } },
      ],
    });
    // events carry no id
    expect(
      z.frames
        .filter((f) => f.type !== "response")
        .every(
          (f) =>
            !("id" in f) ||
            ["tool_use_start", "tool_use_args", "tool_use_end", "tool_call", "tool_progress", "tool_result"].includes(
              f.type as string,
            ),
        ),
    ).toBe(true);
    const msgs = ((await z.ask({ id: "m", type: "get_messages" })).data as { messages: Frame[] }).messages;
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect((msgs[2]!.content as Frame[])[0]).toMatchObject({ type: "tool_result", call_id: call.id, is_error: false });
    const state = (await z.ask({ id: "s", type: "get_state" })).data as Frame;
    expect(state).toMatchObject({ provider: "openai", model: "fake-model", cwd, message_count: 4, busy: false });
    // nothing persists: a new process starts empty
    const z2 = start();
    expect(((await z2.ask({ id: "m", type: "get_messages" })).data as { messages: Frame[] }).messages).toEqual([]);
  });

  it("a second prompt's response is written only when it starts (after the first's done)", async () => {
    model.enqueue({ text: "first reply", chunks: 6, delayMs: 60 }, { text: "second reply" });
    const z = start();
    z.send({ id: "a", type: "prompt", message: "one" });
    z.send({ id: "b", type: "prompt", message: "two" });
    await until(() => z.doneCount() === 2, "two dones");
    const idx = (p: (f: Frame) => boolean) => z.frames.findIndex(p);
    const firstDone = idx((f) => f.type === "done");
    expect(idx((f) => f.id === "a")).toBeLessThan(firstDone);
    expect(idx((f) => f.id === "b")).toBeGreaterThan(firstDone);
  });

  it("abort while streaming: turn_end aborted then done, no error event; the partial reply is not kept", async () => {
    model.enqueue({ text: Array.from({ length: 30 }, (_, i) => `slow${i} `).join(""), chunks: 30, delayMs: 100 });
    const z = start();
    await z.ask({ id: "1", type: "prompt", message: "go slowly" });
    await until(() => z.frames.some((f) => f.type === "text_delta"), "text");
    expect(await z.ask({ id: "2", type: "abort" })).toEqual({
      type: "response",
      id: "2",
      command: "abort",
      success: true,
    });
    await until(() => z.doneCount() === 1, "done");
    const tail = z.types().slice(-2);
    expect(tail).toEqual(["turn_end", "done"]);
    expect(z.frames.find((f) => f.type === "turn_end")).toEqual({ type: "turn_end", stop: "aborted" });
    expect(z.types()).not.toContain("error");
    expect(z.types()).not.toContain("assistant_message");
    const msgs = ((await z.ask({ id: "m", type: "get_messages" })).data as { messages: Frame[] }).messages;
    expect(msgs.map((m) => m.role)).toEqual(["user"]);
  });

  it("compact: compact_done then done (newer build), compact_done without done (old build)", async () => {
    model.enqueue({ text: "Something to compact." });
    const z = start();
    await z.ask({ id: "1", type: "prompt", message: "say something" });
    await until(() => z.doneCount() === 1, "done");
    expect(await z.ask({ id: "2", type: "compact" })).toEqual({
      type: "response",
      id: "2",
      command: "compact",
      success: true,
      data: { started: true },
    });
    await until(() => z.doneCount() === 2, "the compaction's done");
    expect(z.types().slice(-2)).toEqual(["compact_done", "done"]);
    expect(String(z.frames.find((f) => f.type === "compact_done")!.summary)).toContain("Summary");

    const old = start({ env: { FAKE_ZOT_BUILD: "old" } });
    await old.ask({ id: "2", type: "compact" });
    await until(() => old.frames.some((f) => f.type === "compact_done"), "compact_done");
    await old.ask({ id: "3", type: "ping" });
    expect(old.doneCount()).toBe(0);
    expect(await old.ask({ id: "4", type: "set_reasoning", reasoning: "high" })).toMatchObject({
      success: false,
      error: "unknown command",
    });
  });

  it("get_models and set_model (same provider); an unknown model and a busy agent are refused", async () => {
    const z = start();
    const models = (await z.ask({ id: "1", type: "get_models" })).data as { models: Frame[] };
    expect(models.models).toContainEqual({
      id: "fake-model-2",
      provider: "openai",
      context_window: expect.any(Number),
      max_output: expect.any(Number),
      reasoning: false,
    });
    expect(await z.ask({ id: "2", type: "set_model", model: "fake-model-2" })).toEqual({
      type: "response",
      id: "2",
      command: "set_model",
      success: true,
      data: { model: "fake-model-2" },
    });
    expect(await z.ask({ id: "3", type: "set_model", model: "nope" })).toMatchObject({
      success: false,
      error: expect.stringContaining("nope"),
    });
    model.enqueue({ text: Array.from({ length: 10 }, (_, i) => `w${i} `).join(""), chunks: 10, delayMs: 80 });
    await z.ask({ id: "4", type: "prompt", message: "busy now" });
    expect(await z.ask({ id: "5", type: "set_model", model: "fake-model" })).toEqual({
      type: "response",
      id: "5",
      command: "set_model",
      success: false,
      error: "agent is busy",
    });
    await until(() => z.doneCount() === 1, "done");
    expect(model.requests.at(-1)!.model).toBe("fake-model-2");
  });

  it("a model stream that breaks gives turn_end error, error {message}, done", async () => {
    // An OpenAI-compatible endpoint that starts a stream and cuts it.
    const cut = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Half a" } }] })}\n\n`);
      setTimeout(() => res.destroy(), 50);
    });
    await new Promise<void>((r) => cut.listen(0, "127.0.0.1", r));
    try {
      const z = start({
        args: [
          "--provider",
          "openai",
          "--base-url",
          `http://127.0.0.1:${(cut.address() as AddressInfo).port}/v1`,
          "--model",
          "m",
        ],
      });
      await z.ask({ id: "1", type: "prompt", message: "break" });
      await until(() => z.doneCount() === 1, "done");
      const types = z.types();
      expect(types.slice(-3)).toEqual(["turn_end", "error", "done"]);
      const frames = z.frames.filter((f) => f.type !== "response");
      expect(frames.at(-3)).toMatchObject({ type: "turn_end", stop: "error", error: expect.any(String) });
      expect(frames.at(-2)).toEqual({ type: "error", message: (frames.at(-3) as Frame).error });
    } finally {
      cut.close();
    }
  });

  it("--append-system-prompt reaches the model; --cwd is where tools run", async () => {
    model.enqueue(
      { toolCalls: [{ name: "write", arguments: { path: "made-by-zot.txt", content: "hello\n" } }] },
      { text: "Written." },
    );
    const z = start({
      args: [
        "--provider",
        "openai",
        "--base-url",
        model.url,
        "--model",
        "fake-model",
        "--append-system-prompt",
        "Earlier: the user likes tea.",
      ],
    });
    await z.ask({ id: "1", type: "prompt", message: "write the file" });
    await until(() => z.doneCount() === 1, "done");
    expect(fs.readFileSync(path.join(cwd, "made-by-zot.txt"), "utf8")).toBe("hello\n");
    const system = model.requests.at(-1)!.messages.find((m) => m.role === "system");
    expect(String(system?.content)).toContain("Earlier: the user likes tea.");
    expect(String(system?.content)).toContain(`Working directory: ${cwd}`);
  });
});
