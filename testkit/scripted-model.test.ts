import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModel, type RecordedRequest, type ScriptedModel } from "./scripted-model";

interface ChunkDelta {
  role?: string;
  content?: string;
  reasoning_content?: string;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

interface StreamChunk {
  model: string;
  choices: { delta: ChunkDelta; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const AGENT_TOOLS = ["bash", "write", "todowrite"].map((name) => ({
  type: "function",
  function: { name, description: name, parameters: { type: "object", properties: {} } },
}));

let model: ScriptedModel;

beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => {
  await model.close();
});
beforeEach(() => model.reset());

function chat(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${model.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "fake-model", ...body }),
  });
}

function agentRequest(prompt: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    messages: [
      { role: "system", content: "You are an agent.\nWorking directory: /tmp/project\n" },
      { role: "user", content: [{ type: "text", text: prompt }] },
    ],
    tools: AGENT_TOOLS,
    tool_choice: "auto",
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  };
}

async function readStream(res: Response): Promise<{ chunks: StreamChunk[]; done: boolean }> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const lines = (await res.text()).split("\n").filter((line) => line.startsWith("data: "));
  const payloads = lines.map((line) => line.slice("data: ".length));
  const done = payloads[payloads.length - 1] === "[DONE]";
  const chunks = payloads.filter((p) => p !== "[DONE]").map((p) => JSON.parse(p) as StreamChunk);
  return { chunks, done };
}

function deltas(chunks: StreamChunk[]): ChunkDelta[] {
  return chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
}

function joined(chunks: StreamChunk[], field: "content" | "reasoning_content"): string {
  return deltas(chunks)
    .map((delta) => delta[field] ?? "")
    .join("");
}

function finishReason(chunks: StreamChunk[]): string | null | undefined {
  return chunks.flatMap((chunk) => chunk.choices).find((choice) => choice.finish_reason)?.finish_reason;
}

describe("scripted model: streaming", () => {
  it("streams a text turn in role, content, finish, usage, [DONE] order", async () => {
    model.enqueue({ text: "Hello from the fake model", chunks: 5, delayMs: 1, usage: { prompt: 10, completion: 5 } });
    const { chunks, done } = await readStream(await chat(agentRequest("hi")));
    expect(done).toBe(true);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: "assistant", content: "" });
    expect(joined(chunks, "content")).toBe("Hello from the fake model");
    expect(deltas(chunks).filter((d) => d.content).length).toBe(5);
    expect(finishReason(chunks)).toBe("stop");
    const last = chunks[chunks.length - 1];
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(last?.model).toBe("fake-model");
  });

  it("streams reasoning before the text", async () => {
    model.enqueue({ reasoning: "Let me think. Carefully.", text: "Answer.", delayMs: 0 });
    const { chunks } = await readStream(await chat(agentRequest("question")));
    expect(joined(chunks, "reasoning_content")).toBe("Let me think. Carefully.");
    expect(joined(chunks, "content")).toBe("Answer.");
    const kinds = deltas(chunks).map((d) => (d.reasoning_content ? "r" : d.content ? "c" : "-"));
    expect(kinds.lastIndexOf("r")).toBeLessThan(kinds.indexOf("c"));
  });

  it("splits tool call arguments across chunks with the same index", async () => {
    const args = { command: "echo hi", description: "say hi" };
    model.enqueue({ toolCalls: [{ name: "bash", arguments: args }], delayMs: 0 });
    const { chunks } = await readStream(await chat(agentRequest("go")));
    const calls = deltas(chunks).flatMap((d) => d.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, type: "function", function: { name: "bash", arguments: "" } });
    expect(calls[0]?.id).toMatch(/^call_/);
    const pieces = calls.slice(1).map((call) => call.function?.arguments ?? "");
    expect(pieces.length).toBeGreaterThan(1);
    expect(calls.every((call) => call.index === 0)).toBe(true);
    expect(JSON.parse(pieces.join(""))).toEqual(args);
    expect(finishReason(chunks)).toBe("tool_calls");
  });

  it("answers stream:false with a chat.completion", async () => {
    model.enqueue({ text: "plain", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] });
    const res = await chat(agentRequest("x", { stream: false }));
    const body = (await res.json()) as {
      object: string;
      choices: {
        message: { content: string; tool_calls: { function: { arguments: string } }[] };
        finish_reason: string;
      }[];
    };
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]?.message.content).toBe("plain");
    expect(JSON.parse(body.choices[0]?.message.tool_calls[0]?.function.arguments ?? "")).toEqual({ command: "ls" });
    expect(body.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("returns an error turn's status and OpenAI error body", async () => {
    model.enqueue({ error: { status: 400, message: "bad things" } });
    const res = await chat(agentRequest("x"));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: "bad things", type: "invalid_request_error", code: null } });
  });
});

describe("scripted model: turn selection", () => {
  it("never consumes scripted turns for tool-less (title) requests", async () => {
    model.enqueue({ text: "scripted" });
    const titleRes = await chat({
      messages: [
        { role: "system", content: "You are a title generator." },
        { role: "user", content: "Generate a title for this conversation:\n" },
        { role: "user", content: "please fix the flaky login test in the auth module today" },
      ],
      stream: false,
    });
    const title = (await titleRes.json()) as { choices: { message: { content: string } }[] };
    expect(title.choices[0]?.message.content).toBe("Please fix the flaky login test");

    const streamedTitle = await readStream(
      await chat({ messages: [{ role: "user", content: "hello world" }], stream: true }),
    );
    expect(joined(streamedTitle.chunks, "content")).toBe("Hello world");

    const { chunks } = await readStream(await chat(agentRequest("hi")));
    expect(joined(chunks, "content")).toBe("scripted");
    expect(model.requests.map((r) => r.source)).toEqual(["auxiliary", "auxiliary", "queue"]);
  });

  it("answers compaction (summary) requests with a markdown summary", async () => {
    const res = await chat({
      messages: [
        { role: "system", content: "You are a context summarization agent. You are given a conversation." },
        {
          role: "user",
          content: "Here is the conversation so far:\n\n<conversation>\n[User]: fix the bug\n\n[Assistant]: ok",
        },
      ],
      stream: false,
    });
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toContain('The user asked: "fix the bug"');
  });

  it("only consumes a `match` turn when the last user message contains it", async () => {
    model.enqueue({ text: "for beta", match: "beta" }, { text: "unmatched" });
    const first = await readStream(await chat(agentRequest("alpha")));
    expect(joined(first.chunks, "content")).toBe("unmatched");
    const second = await readStream(await chat(agentRequest("now beta")));
    expect(joined(second.chunks, "content")).toBe("for beta");
  });

  it("falls back to keyword rules when the queue is empty", async () => {
    const bash = await readStream(await chat(agentRequest("please use bash")));
    const bashCall = deltas(bash.chunks).flatMap((d) => d.tool_calls ?? []);
    expect(bashCall[0]?.function?.name).toBe("bash");

    const write = await readStream(await chat(agentRequest("write notes.md please")));
    const writeArgs = deltas(write.chunks)
      .flatMap((d) => d.tool_calls ?? [])
      .map((c) => c.function?.arguments ?? "")
      .join("");
    expect(JSON.parse(writeArgs)).toMatchObject({ filePath: "/tmp/project/notes.md" });

    const think = await readStream(await chat(agentRequest("think about it")));
    expect(joined(think.chunks, "reasoning_content").length).toBeGreaterThan(0);

    const plain = await readStream(await chat(agentRequest("explain closures")));
    const text = joined(plain.chunks, "content");
    expect(text).toContain("## ");
    expect(text).toContain("```");
    expect(text).toContain("explain closures");

    const followUp = agentRequest("please use bash");
    const messages = followUp.messages as Record<string, unknown>[];
    messages.push(
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "hello from switchboard\n" },
    );
    const summary = await readStream(await chat({ ...followUp, messages }));
    expect(joined(summary.chunks, "content")).toContain("hello from switchboard");
    expect(model.requests.every((r) => r.source === "fallback")).toBe(true);
  });
});

describe("scripted model: control API and robustness", () => {
  it("enqueues, lists requests and resets over HTTP", async () => {
    const base = model.url.replace(/\/v1$/, "");
    const enqueue = await fetch(`${base}/__control/enqueue`, {
      method: "POST",
      body: JSON.stringify({ turns: [{ text: "via control" }] }),
    });
    expect(enqueue.status).toBe(200);
    const { chunks } = await readStream(await chat({ ...agentRequest("x"), model: "fake-model-2" }));
    expect(joined(chunks, "content")).toBe("via control");

    const recorded = (await (await fetch(`${base}/__control/requests`)).json()) as RecordedRequest[];
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ model: "fake-model-2", stream: true, source: "queue" });
    expect(recorded[0]?.tools).toEqual(["bash", "write", "todowrite"]);
    expect(typeof recorded[0]?.time).toBe("number");

    expect((await fetch(`${base}/__control/reset`, { method: "POST" })).status).toBe(200);
    expect(model.requests).toHaveLength(0);
    const bad = await fetch(`${base}/__control/enqueue`, { method: "POST", body: "{}" });
    expect(bad.status).toBe(400);
  });

  it("serves /v1/models and /api.json", async () => {
    const base = model.url.replace(/\/v1$/, "");
    const models = (await (await fetch(`${model.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(["fake-model", "fake-model-2"]);
    expect(await (await fetch(`${base}/api.json`)).json()).toEqual({});
  });

  it("survives a client aborting mid-stream", async () => {
    model.enqueue({ text: "x".repeat(200), chunks: 20, delayMs: 20 }, { text: "still alive", delayMs: 0 });
    const res = await chat(agentRequest("a"));
    const reader = res.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { chunks } = await readStream(await chat(agentRequest("b")));
    expect(joined(chunks, "content")).toBe("still alive");
  });
});
