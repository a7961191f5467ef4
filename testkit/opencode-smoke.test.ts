/**
 * Integration smoke test: the scripted model driving a real, hermetic `opencode serve`.
 */
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpencodeHome, createWorkspace, type OpencodeHome } from "./opencode-env";
import { startOpencodeServer, type OpencodeServer } from "./opencode-server";
import { messageText, startScriptedModel, type ScriptedModel } from "./scripted-model";

interface OcEvent {
  type: string;
  properties: Record<string, unknown> & { sessionID?: string };
}

interface ToolPart {
  type: "tool";
  tool: string;
  callID: string;
  state: { status: string; output?: string };
}

const WAIT_MS = 20_000;

/** Reads `GET /event` with plain fetch and lets the test wait for matching events. */
class EventStream {
  readonly events: OcEvent[] = [];
  private readonly controller = new AbortController();
  private waiters: (() => void)[] = [];

  constructor(url: string) {
    void this.pump(url);
  }

  close(): void {
    this.controller.abort();
  }

  async waitFor(predicate: (event: OcEvent) => boolean, from = 0, timeoutMs = WAIT_MS): Promise<OcEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find(predicate);
      if (found) return found;
      if (Date.now() > deadline) {
        const seen = this.events
          .slice(from)
          .map((event) => event.type)
          .join(", ");
        throw new Error(`timed out waiting for an event; saw: ${seen}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  }

  private async pump(url: string): Promise<void> {
    try {
      const res = await fetch(url, { signal: this.controller.signal, headers: { accept: "text/event-stream" } });
      const decoder = new TextDecoder();
      let buffer = "";
      const reader = res.body?.getReader();
      for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
        buffer += decoder.decode(read.value, { stream: true });
        const frames = buffer.split("\n\n");
        buffer = frames.pop() ?? "";
        for (const frame of frames) this.parseFrame(frame);
      }
    } catch {
      // aborted by close()
    }
  }

  private parseFrame(frame: string): void {
    const data = frame
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (!data) return;
    this.events.push(JSON.parse(data) as OcEvent);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

let model: ScriptedModel;
let home: OpencodeHome;
let workspace: string;
let server: OpencodeServer;
let events: EventStream;

async function api<T>(method: string, route: string, body?: unknown): Promise<{ status: number; data: T }> {
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, data: (text ? JSON.parse(text) : undefined) as T };
}

async function prompt(sessionID: string, text: string): Promise<void> {
  const res = await api<undefined>("POST", `/session/${sessionID}/prompt_async`, { parts: [{ type: "text", text }] });
  expect(res.status).toBe(204);
}

function isIdle(sessionID: string) {
  return (event: OcEvent) => event.type === "session.idle" && event.properties.sessionID === sessionID;
}

describe("opencode serve + scripted model", () => {
  beforeAll(async () => {
    model = await startScriptedModel();
    home = await createOpencodeHome({ modelBaseUrl: model.url });
    workspace = await createWorkspace();
    server = await startOpencodeServer({ env: home.env, cwd: workspace });
    events = new EventStream(`${server.url}/event`);
    await events.waitFor((event) => event.type === "server.connected");
  });

  afterAll(async () => {
    events?.close();
    await server?.stop();
    await model?.close();
    await home?.cleanup();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it("streams a text turn and a bash tool round trip", async () => {
    const health = await api<{ healthy: boolean; version: string }>("GET", "/global/health");
    expect(health.data).toEqual({ healthy: true, version: "1.18.33" });

    const session = await api<{ id: string; directory: string }>("POST", "/session", {});
    expect(session.status).toBe(200);
    const sessionID = session.data.id;
    expect(session.data.directory).toBe(workspace);

    // 1. Plain text turn.
    model.enqueue({ text: "Hello from the scripted model!", chunks: 6, delayMs: 10 });
    let from = events.events.length;
    await prompt(sessionID, "say hello");
    await events.waitFor(isIdle(sessionID), from);
    const deltas = events.events
      .slice(from)
      .filter((event) => event.type === "message.part.delta" && event.properties.sessionID === sessionID);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.properties.delta).join("")).toBe("Hello from the scripted model!");

    // 2. Bash tool call, then a text turn answering the tool result.
    model.enqueue(
      { toolCalls: [{ name: "bash", arguments: { command: "echo hi", description: "say hi" } }] },
      { text: "The command printed hi." },
    );
    from = events.events.length;
    await prompt(sessionID, "please use bash");
    const completed = await events.waitFor((event) => {
      const part = event.properties.part as ToolPart | undefined;
      return event.type === "message.part.updated" && part?.type === "tool" && part.state.status === "completed";
    }, from);
    const part = completed.properties.part as ToolPart;
    expect(part.tool).toBe("bash");
    expect(part.state.output).toBe("hi\n");
    await events.waitFor(isIdle(sessionID), from);

    // The model saw the agent-loop requests with the configured model and the tool result.
    const agentCalls = model.requests.filter((request) => request.source !== "auxiliary");
    expect(agentCalls.map((request) => request.source)).toEqual(["queue", "queue", "queue"]);
    expect(agentCalls.every((request) => request.model === "fake-model" && request.stream)).toBe(true);
    expect(agentCalls[0]?.tools).toContain("bash");
    const lastMessage = agentCalls[2]?.messages.at(-1);
    expect(lastMessage?.role).toBe("tool");
    expect(messageText(lastMessage)).toBe("hi\n");
  });
});
