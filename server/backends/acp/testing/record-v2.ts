/**
 * Records an ACP v2 conversation with a real adapter against the scripted model, as the fixtures
 * `../fixtures/<agent>-acp-v2.jsonl` (`{t, dir, msg}` per line, as the v1 captures): initialize
 * asking for v2, session/new, one prompt whose scripted reply runs a shell command that needs the
 * user's approval (allowed), then session/list and session/close where the agent declares them.
 * The client side is the SDK's own (`@agentclientprotocol/sdk/experimental/v2`, SDK 2.4.0).
 *
 *   npx tsx server/backends/acp/testing/record-v2.ts codex|claude-code
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { type AnyMessage, client, ndJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { claudeCodeAgent, codexAgent } from "../../../../testkit/acp-vendor-env";
import { startScriptedModel } from "../../../../testkit/scripted-model";

const which = process.argv[2] === "claude-code" ? "claude-code" : "codex";
const model = await startScriptedModel();
const setup = await (which === "codex" ? codexAgent : claudeCodeAgent)({ modelUrl: model.url });
const shell =
  which === "codex"
    ? {
        name: "exec_command",
        arguments: { cmd: "echo v2-ok", sandbox_permissions: "require_escalated", justification: "check" },
      }
    : { name: "Bash", arguments: { command: "echo v2-ok", description: "check" } };
model.enqueue(
  { reasoning: "Thinking it over.", text: "Running it.", toolCalls: [shell], chunks: 3 },
  { text: "Done: v2-ok.", chunks: 3 },
);
const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acp-v2-ws-")));
// hermetic: only what the setup gives (acp-vendor-env.ts), as the e2e runs it
const env = { ...setup.env } as unknown as NodeJS.ProcessEnv;
if (which === "claude-code") env.ANTHROPIC_API_KEY = "sk-test";
const child = spawn(setup.command[0]!, setup.command.slice(1), { env, cwd, stdio: ["pipe", "pipe", "inherit"] });
const t0 = Date.now();
const frames: string[] = [];
const rec = (dir: string) =>
  new TransformStream<AnyMessage, AnyMessage>({
    transform(m, c) {
      frames.push(JSON.stringify({ t: Date.now() - t0, dir, msg: m }));
      c.enqueue(m);
    },
  });
const raw = ndJsonStream(
  Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
  Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
);
const out = rec("->");
void out.readable.pipeTo(raw.writable);
const stream = { writable: out.writable, readable: raw.readable.pipeThrough(rec("<-")) };

let idle: () => void = () => {};
const app = client({ name: "switchboard-recorder" })
  .onRequest("session/request_permission", (ctx) => {
    const allow = ctx.params.options.find((o) => o.kind === "allow_once") ?? ctx.params.options[0]!;
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onNotification("session/update", (ctx) => {
    const u = ctx.params.update as { sessionUpdate: string; state?: string; stopReason?: string };
    if (u.sessionUpdate === "state_update" && u.state === "idle" && u.stopReason) idle();
  });
try {
  await app.connectWith(stream, async (ctx) => {
    const init = (await ctx.request("initialize", {
      protocolVersion: 2,
      info: { name: "switchboard-recorder", version: "0.0.0" },
      capabilities: {},
    })) as {
      protocolVersion: number;
      authMethods?: { id: string }[];
      capabilities?: { session?: Record<string, unknown> };
    };
    if (init.protocolVersion !== 2) throw new Error(`agent answered protocol ${init.protocolVersion}`);
    if (which === "codex")
      await ctx.request("auth/login", { methodId: "api-key", _meta: { "api-key": { apiKey: "sk-test" } } } as never);
    const s = (await ctx.request("session/new", { cwd, mcpServers: [] })) as { sessionId: string };
    const done = new Promise<void>((r) => {
      idle = r;
    });
    await ctx.request("session/prompt", {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "Run echo v2-ok" }],
    } as never);
    await Promise.race([
      done,
      new Promise((_, rej) => setTimeout(() => rej(new Error("no idle state_update")), 90_000)),
    ]);
    const sess = init.capabilities?.session ?? {};
    if ("list" in sess) await ctx.request("session/list", { cwd } as never);
    if ("close" in sess) await ctx.request("session/close", { sessionId: s.sessionId } as never);
  });
} finally {
  const file = path.join(import.meta.dirname, "..", "fixtures", `${which}-acp-v2.jsonl`);
  fs.writeFileSync(file, `${frames.join("\n")}\n`);
  console.log(`wrote ${frames.length} frames to ${file}`);
  child.kill();
  await model.close();
  await setup.cleanup();
}
