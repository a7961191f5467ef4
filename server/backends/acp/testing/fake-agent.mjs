#!/usr/bin/env node
/**
 * A small, protocol-faithful ACP agent for the adapter's fast tests, built with the SDK's `agent()`.
 * It prints a banner and a malformed line on stdout (the console must skip them), numbers its
 * permission requests from 0, and is scripted by the prompt text:
 *
 *   hello        three message chunks
 *   think        a thought, then text
 *   perm         a bash-like tool behind a permission request, output on allow, failure on reject
 *   slow         a chunk every 100 ms until cancelled
 *   hang         never ends and ignores cancel
 *   crash        one chunk, then the process exits with code 3
 *   read <path>  reads the file through fs/read_text_file and answers with its content (or the error)
 *   write <path> writes "written by the fake agent" through fs/write_text_file
 *   links        answers with the prompt's resource links, as "name uri mimeType; …"
 *   fail         fails the prompt with an internal error carrying `data.details`
 *   flood        20 valid chunks ("valid part 0" … "valid part 19") with 10 malformed frames after
 *                each (200 in all): not JSON, truncated JSON, JSON that is not an object, objects
 *                that are not JSON-RPC, a wrong protocol version, responses to requests never sent,
 *                unknown methods, session/update with bad or missing params or an unknown session,
 *                invalid UTF-8, a request for a method the client does not have
 *
 * Environment: FAKE_V2=1 (serves ACP v2 too, ./fake-agent-v2.mjs; and notes each v1 prompt on stderr as
 * "v1 session/prompt"), FAKE_OLD_GEMINI=1 (refuses any flag but --experimental-acp, as Gemini CLI before
 * 0.33 did), FAKE_NO_LOAD=1 (no loadSession, no list), FAKE_AUTH=1 (session/new: Authentication
 * required), FAKE_ENV_AUTH=1 (an `env_var` method with FAKE_KEY: session/new needs an
 * `authenticate` call with FAKE_KEY set; FAKE_KEY=bad fails it with `data.details`), FAKE_MODES=1 (modes instead of config options), FAKE_STATE=<file> (sessions survive a
 * restart, like a real agent's session store), FAKE_DEVICE_AUTH=<file> (codex-acp 2.6.0's
 * "ChatGPT (device code)" method, listed only to clients with URL elicitation: session/new needs a
 * login; its `authenticate` sends a URL elicitation with the code, as codex-acp does, and succeeds once
 * <file> exists — the user finished at the link), FAKE_AUTH_STATUS=<kind> (declares the authStatus
 * extension and pushes `_auth/status_update` with that kind after initialize, as claude-agent-acp
 * 0.101.0 does once `claude auth status` answers: dist/auth-status.js, dist/acp-agent.js `initialize`;
 * "none" is its "Not logged in"), FAKE_TERMINAL_AUTH=<file> (claude-agent-acp 0.101.0's terminal login,
 * dist/acp-agent.js `initialize`: a `type: "terminal"` method with `args`, listed only to clients that
 * declare `auth.terminal`; the authStatus extension reports "none" until <file> exists, and session/new
 * needs it; `fake-agent.mjs --login` asks for a code on its terminal and, given 4821, writes <file>
 * with its working directory and exits 0 — wrong code: exit 1).
 */
import fs from "node:fs";
import { Readable, Writable } from "node:stream";
import { agent, methods, ndJsonStream, RequestError } from "@agentclientprotocol/sdk";
import { agentProtocolRouter } from "@agentclientprotocol/sdk/experimental/v2";
import { fakeConfigOptions, v2App } from "./fake-agent-v2.mjs";

const noLoad = process.env.FAKE_NO_LOAD === "1";
const needsAuth = process.env.FAKE_AUTH === "1";
const withModes = process.env.FAKE_MODES === "1";
const envAuth = process.env.FAKE_ENV_AUTH === "1";
const deviceFile = process.env.FAKE_DEVICE_AUTH;
let authenticated = false;

// FAKE_OLD_GEMINI=1: a Gemini CLI before 0.33, whose strict yargs parser knows only
// `--experimental-acp` (it logs the parse error, prints the help to stderr and exits 1).
if (process.env.FAKE_OLD_GEMINI === "1" && !process.argv.includes("--experimental-acp")) {
  const unknown = process.argv
    .slice(2)
    .filter((a) => a.startsWith("--"))
    .map((a) => a.slice(2));
  process.stderr.write(`Unknown argument: ${unknown.join(", ")}\nUsage: gemini [options] [command]\n`);
  process.exit(1);
}

const terminalFile = process.env.FAKE_TERMINAL_AUTH;
const loginMode = process.argv.includes("--login");
if (loginMode) {
  // the terminal login: a prompt on the tty, as `claude auth login` asks for its code
  if (!process.stdin.isTTY) {
    process.stderr.write("--login needs a terminal\n");
    process.exit(2);
  }
  process.stdout.write("Fake login\r\nPaste the code: ");
  let line = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (d) => {
    line += d;
    if (!/[\r\n]/.test(line)) return;
    const code = line.trim();
    if (code === "4821" && terminalFile) {
      fs.writeFileSync(terminalFile, process.cwd());
      process.stdout.write("Logged in.\r\n");
      process.exit(0);
    }
    process.stdout.write("Wrong code.\r\n");
    process.exit(1);
  });
} else {
  process.stdout.write("Fake ACP agent starting (this banner is not JSON)\n");
}
if (!loginMode) process.stderr.write(`fake agent pid ${process.pid}\n`);

/** sessionId -> {cwd, title, history: SessionUpdate[], cancelled, mode, model, yolo} */
const stateFile = process.env.FAKE_STATE;
const sessions = new Map(stateFile && fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, "utf8")) : []);
const save = () => stateFile && fs.writeFileSync(stateFile, JSON.stringify([...sessions.entries()]));
let counter = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Ten kinds of malformed frame (a string or raw bytes), written to stdout beside the SDK's own lines. */
const malformed = (sessionId, k) => {
  const rpc = (o) => JSON.stringify({ jsonrpc: "2.0", ...o });
  const frames = [
    () => `garbage line ${k} <script>alert(1)</script>`,
    () => `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sessionId}","upd`,
    () => JSON.stringify([k, "an array"]),
    () => JSON.stringify({ hello: "not json-rpc", k }),
    () =>
      JSON.stringify({
        jsonrpc: "1.0",
        method: "session/update",
        params: {
          sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "WRONG VERSION" } },
        },
      }),
    () => rpc({ id: 900000 + k, result: { stopReason: "end_turn" } }),
    () => rpc({ method: "x/unknown_notification", params: { k } }),
    () =>
      rpc({
        method: "session/update",
        params: { sessionId, update: { sessionUpdate: "no_such_update", content: 42 } },
      }),
    () =>
      rpc({
        method: "session/update",
        params: {
          sessionId: "no-such-session",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "WRONG SESSION" } },
        },
      }),
    () =>
      [
        rpc({ method: "session/update", params: { update: "not an object" } }),
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(" invalid utf-8 "), Buffer.from([0xc3, 0x28])]),
        rpc({ id: `bogus-${k}`, method: "x/no_such_client_method", params: {} }),
      ][k % 3],
  ];
  return frames[k % frames.length]();
};

const configOptions = (s) => fakeConfigOptions(s, "id");
const modes = (s) => ({
  currentModeId: s.mode,
  availableModes: [
    { id: "ask", name: "Ask" },
    { id: "code", name: "Code" },
  ],
});

const authStatusKind = process.env.FAKE_AUTH_STATUS;
/** FAKE_TERMINAL_AUTH: logged in once its file exists (read at each initialize). */
const statusKind = () =>
  authStatusKind ?? (terminalFile ? (fs.existsSync(terminalFile) ? "oauth" : "none") : undefined);

/** The initialize result (v1). */
function initializeResult(params) {
  return {
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: !noLoad,
      promptCapabilities: { image: false, embeddedContext: false },
      sessionCapabilities: noLoad ? {} : { list: {}, close: {} },
      ...(statusKind() ? { _meta: { authStatus: {} } } : {}),
    },
    authMethods: [
      { id: "fake-login", name: "Log in to Fake", description: "Run `fake login` in a terminal" },
      // claude-agent-acp 0.101.0: terminal methods only for clients declaring `auth.terminal`
      ...(terminalFile && params.clientCapabilities?.auth?.terminal === true
        ? [
            {
              id: "fake-terminal-login",
              name: "Log in with Fake",
              description: "Sign in with your Fake account",
              type: "terminal",
              args: ["--login"],
            },
          ]
        : []),
      // codex-acp 2.6.0 (src/CodexAuthMethod.ts): only for clients that declare URL elicitation
      ...(deviceFile && params.clientCapabilities?.elicitation?.url
        ? [
            {
              id: "chat-gpt-device-code",
              name: "ChatGPT (device code)",
              description: "Sign in to ChatGPT by opening a verification page and entering a one-time code",
            },
          ]
        : []),
      ...(envAuth
        ? [
            {
              type: "env_var",
              id: "fake-key",
              name: "Use FAKE_KEY",
              description: "Set FAKE_KEY",
              vars: [{ name: "FAKE_KEY" }],
            },
          ]
        : []),
    ],
    agentInfo: { name: "Fake", title: "Fake Agent", version: "9.9.9" },
  };
}

const app = agent({ name: "fake-agent" })
  .onRequest(methods.agent.initialize, ({ params, client }) => {
    const kind = statusKind();
    if (kind) {
      // pushed after the initialize response, never before it (claude-agent-acp's order)
      setTimeout(() => {
        const label = kind === "none" ? "Not logged in" : "API key";
        client.notify("_auth/status_update", { authStatus: { kind, label } }).catch(() => {});
      }, 50);
    }
    return initializeResult(params);
  })
  .onRequest(methods.agent.session.new, ({ params, client }) => {
    if (needsAuth || ((envAuth || deviceFile) && !authenticated)) throw RequestError.authRequired();
    if (terminalFile && !fs.existsSync(terminalFile)) throw RequestError.authRequired();
    const sessionId = `fake-${process.pid}-${++counter}`;
    const s = {
      cwd: params.cwd,
      title: undefined,
      history: [],
      cancelled: false,
      mode: "ask",
      model: "fake/a",
      yolo: false,
    };
    sessions.set(sessionId, s);
    save();
    void client.notify(methods.client.session.update, {
      sessionId,
      update: {
        sessionUpdate: "available_commands_update",
        availableCommands: [{ name: "compact", description: "Compact" }],
      },
    });
    return withModes ? { sessionId, modes: modes(s) } : { sessionId, configOptions: configOptions(s) };
  })
  .onRequest(methods.agent.authenticate, async ({ params, client }) => {
    if (deviceFile && params.methodId === "chat-gpt-device-code") {
      // as codex-acp's authenticateWithChatGptDeviceCode: a URL elicitation with the code, then the login completes
      const answer = await client.request(methods.client.elicitation.create, {
        mode: "url",
        requestId: "authenticate",
        url: "https://auth.example.test/codex/device",
        message: "Sign in to ChatGPT and enter this code: WXYZ-4821",
        elicitationId: "login-1",
      });
      if (answer.action !== "accept") throw RequestError.internalError({ details: "the sign-in was declined" });
      while (!fs.existsSync(deviceFile)) await new Promise((r) => setTimeout(r, 50));
      await client.notify(methods.client.elicitation.complete, { elicitationId: "login-1" });
      authenticated = true;
      return {};
    }
    if (params.methodId !== "fake-key" || !process.env.FAKE_KEY)
      throw RequestError.internalError({ details: "FAKE_KEY is not set" });
    if (process.env.FAKE_KEY === "bad") throw RequestError.internalError({ details: "FAKE_KEY was refused" });
    authenticated = true;
    process.stderr.write(`authenticated with ${params.methodId}\n`);
    return {};
  })
  .onRequest(methods.agent.session.list, () => ({
    sessions: [...sessions.entries()].map(([sessionId, s]) => ({
      sessionId,
      cwd: s.cwd,
      title: s.title ?? null,
      updatedAt: new Date().toISOString(),
    })),
  }))
  .onRequest(methods.agent.session.load, async ({ params, client }) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw RequestError.sessionNotFound(params.sessionId);
    for (const update of s.history)
      await client.notify(methods.client.session.update, { sessionId: params.sessionId, update });
    return withModes ? { modes: modes(s) } : { configOptions: configOptions(s) };
  })
  .onRequest(methods.agent.session.setMode, async ({ params, client }) => {
    const s = sessions.get(params.sessionId);
    s.mode = params.modeId;
    await client.notify(methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: "current_mode_update", currentModeId: s.mode },
    });
    return {};
  })
  .onRequest(methods.agent.session.setConfigOption, ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (params.configId === "model") s.model = params.value;
    if (params.configId === "yolo") s.yolo = params.value;
    return { configOptions: configOptions(s) };
  })
  .onNotification(methods.agent.session.cancel, ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (s) s.cancelled = true;
  })
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const s = sessions.get(sessionId);
    if (!s) throw RequestError.sessionNotFound(sessionId);
    s.cancelled = false;
    if (process.env.FAKE_V2) process.stderr.write("v1 session/prompt\n");
    const text = params.prompt
      .map((b) => (b.type === "text" ? b.text : ""))
      .join(" ")
      .trim();
    const send = async (update) => {
      s.history.push(update);
      save();
      await client.notify(methods.client.session.update, { sessionId, update });
    };
    s.history.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
    if (!s.title) {
      s.title = `Fake: ${text.slice(0, 30)}`;
      await client.notify(methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: "session_info_update", title: s.title },
      });
    }
    const say = (t) => send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } });
    const [verb, arg] = text.split(/\s+/, 2);
    switch (verb) {
      case "think":
        await send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Pondering. " } });
        await say("Thought about it.");
        break;
      case "perm": {
        const toolCallId = `call_${++counter}`;
        await send({
          sessionUpdate: "tool_call",
          toolCallId,
          title: "Run echo",
          kind: "execute",
          status: "pending",
          rawInput: { command: "echo fake" },
        });
        const answer = await client.request(methods.client.session.requestPermission, {
          sessionId,
          toolCall: { toolCallId, title: "Run echo", kind: "execute", rawInput: { command: "echo fake" } },
          options: [
            { optionId: "yes", name: "Yes", kind: "allow_once" },
            { optionId: "always", name: "Always", kind: "allow_always" },
            { optionId: "no", name: "No", kind: "reject_once" },
          ],
        });
        if (answer.outcome.outcome === "cancelled") {
          await send({
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: "failed",
            content: [{ type: "content", content: { type: "text", text: "cancelled" } }],
          });
          return { stopReason: "cancelled" };
        }
        if (answer.outcome.optionId === "no") {
          await send({
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: "failed",
            content: [
              { type: "content", content: { type: "text", text: "The user rejected permission to use this tool." } },
            ],
          });
          await say("Not allowed, fine.");
        } else {
          await send({
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: "in_progress",
            content: [{ type: "content", content: { type: "text", text: "fake\n" } }],
          });
          await send({
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: "completed",
            rawOutput: { output: "fake\n", metadata: { exit: 0 } },
          });
          await say(`Ran it (${answer.outcome.optionId}).`);
        }
        break;
      }
      case "fail":
        await say("about to fail");
        throw RequestError.internalError({ details: "Query closed before response received" });
      case "slow":
        for (let i = 0; i < 200 && !s.cancelled; i++) {
          await say(`tick${i} `);
          await sleep(100);
        }
        if (s.cancelled) return { stopReason: "cancelled" };
        break;
      case "hang":
        await say("hanging…");
        await new Promise(() => {});
        break;
      case "flood": {
        let k = 0;
        for (let i = 0; i < 20; i++) {
          await say(`valid part ${i}\n`);
          for (let j = 0; j < 10; j++, k++) {
            const frame = malformed(sessionId, k);
            process.stdout.write(typeof frame === "string" ? `${frame}\n` : Buffer.concat([frame, Buffer.from("\n")]));
          }
        }
        break;
      }
      case "crash":
        await say("about to crash");
        await sleep(50);
        process.exit(3);
        break;
      case "links":
        await say(
          params.prompt
            .filter((b) => b.type === "resource_link")
            .map((b) => `${b.name} ${b.uri} ${b.mimeType}`)
            .join("; "),
        );
        break;
      case "read":
        try {
          const r = await client.request(methods.client.fs.readTextFile, { sessionId, path: arg });
          await say(`content: ${r.content}`);
        } catch (err) {
          await say(`read failed: ${err.message}`);
        }
        break;
      case "write":
        try {
          await client.request(methods.client.fs.writeTextFile, {
            sessionId,
            path: arg,
            content: "written by the fake agent",
          });
          await say("written");
        } catch (err) {
          await say(`write failed: ${err.message}`);
        }
        break;
      default:
        await say("Hello ");
        process.stdout.write("{ this line is broken\n");
        await say("from the ");
        await say("fake agent.");
    }
    return { stopReason: "end_turn", usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 } };
  });

// `--login` (FAKE_TERMINAL_AUTH) is a terminal program, not an ACP agent: it never speaks ACP.
if (loginMode) await new Promise(() => {});
const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
// FAKE_V2=1: ACP v2 beside v1, routed by the version the client asks for (the SDK's protocol router,
// as codex-acp 2.6.0 and claude-agent-acp 0.101.0 do); else v1 only, as Copilot, OpenCode and Gemini CLI.
const conn = process.env.FAKE_V2
  ? agentProtocolRouter()
      .withV1(app)
      .withV2(
        v2App({
          sessions,
          save,
          nextId: () => ++counter,
          sleep,
          noLoad,
          needsAuth,
          envAuth,
          isAuthenticated: () => authenticated,
          authenticated: () => {
            authenticated = true;
          },
        }),
      )
      .connect(stream)
  : app.connect(stream);
await conn.closed;
process.exit(0);
