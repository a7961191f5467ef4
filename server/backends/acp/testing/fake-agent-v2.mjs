/**
 * The fake agent's ACP v2 side (./fake-agent.mjs serves it beside v1 with the SDK's
 * `agentProtocolRouter` when FAKE_V2=1), built with the SDK's v2 `agent()` (SDK 2.4.0, the draft of
 * 2026-07-20) and shaped like codex-acp 2.6.0 and claude-agent-acp 0.101.0 on the wire
 * (../fixtures/*-acp-v2.jsonl): the prompt is acknowledged at once with the user message's id, the
 * turn's progress and end are `state_update`s, messages carry ids, a shell command is a
 * `tool_call_update` upsert with an agent-owned terminal, a permission request has a title and a
 * subject. Every request is noted on stderr (`v2 <method> <params>`), so tests can see what was asked.
 *
 * Scripts (the prompt text), besides v1's `hello`, `think`, `perm`, `slow`, `hang`, `crash`, `fail`:
 *
 *   upsert     a chunk "Draft", then an `agent_message` upsert of the same id with "Final answer."
 *   v1result   answers the prompt with v1's `{stopReason}` and sends no state_update
 *   v1ack      acknowledges with a messageId and v1's stopReason, then sends no state_update
 *   v1update   sends v1's `tool_call` update (no such kind in v2)
 *   v1chunk    sends a message chunk without `messageId` (v1's shape; the SDK's v2 client drops it)
 *
 * FAKE_NO_LOAD=1: no `session` capability (so no session/list, resume or close declared).
 * FAKE_AUTH=1 / FAKE_ENV_AUTH=1: as in v1 (`auth/login` instead of `authenticate`); with FAKE_LOGGED_IN=1
 * the agent has a login of its own (session/new works without FAKE_KEY).
 */
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";

const b64 = (s) => Buffer.from(s, "utf8").toString("base64");

/**
 * @param {{ sessions: Map<string, any>, save: () => void, nextId: () => number, sleep: (ms: number) => Promise<void>,
 *   noLoad: boolean, needsAuth: boolean, envAuth: boolean, isAuthenticated: () => boolean, authenticated: () => void }} ctx
 */
/**
 * The fake's session config options (a model select and an "Allow all" switch), in either version's
 * shape: v1 names an option `id`, v2 `configId`.
 * @param {{ model: string, yolo: boolean }} s
 * @param {"id" | "configId"} key
 */
export function fakeConfigOptions(s, key) {
  return [
    {
      type: "select",
      [key]: "model",
      name: "Model",
      category: "model",
      currentValue: s.model,
      options: [
        { value: "fake/a", name: "Model A" },
        { value: "fake/b", name: "Model B" },
      ],
    },
    { type: "boolean", [key]: "yolo", name: "Allow all", category: "permissions", currentValue: s.yolo },
  ];
}

export function v2App(ctx) {
  const { sessions, save, nextId, sleep } = ctx;
  const note = (method, params) => process.stderr.write(`v2 ${method} ${JSON.stringify(params ?? {})}\n`);
  const configOptions = (s) => fakeConfigOptions(s, "configId");
  const commands = [{ type: "command", name: "compact", description: "Compact" }];

  return v2
    .agent({ name: "fake-agent-v2" })
    .onRequest(v2.methods.agent.initialize, ({ params }) => {
      note("initialize", { protocolVersion: params.protocolVersion });
      return {
        protocolVersion: 2,
        info: { name: "Fake", title: "Fake Agent", version: "9.9.9" },
        capabilities: ctx.noLoad ? {} : { session: { prompt: {}, delete: {} } },
        authMethods: [
          {
            type: "agent",
            methodId: "fake-login",
            name: "Log in to Fake",
            description: "Run `fake login` in a terminal",
          },
          ...(ctx.envAuth
            ? [{ type: "env_var", methodId: "fake-key", name: "Use FAKE_KEY", vars: [{ name: "FAKE_KEY" }] }]
            : []),
        ],
      };
    })
    .onRequest(v2.methods.agent.auth.login, ({ params }) => {
      note("auth/login", { methodId: params.methodId });
      if (params.methodId !== "fake-key" || !process.env.FAKE_KEY)
        throw v2.RequestError.internalError({ details: "FAKE_KEY is not set" });
      ctx.authenticated();
      return {};
    })
    .onRequest(v2.methods.agent.session.new, ({ params }) => {
      note("session/new", {});
      const loggedIn = ctx.isAuthenticated() || process.env.FAKE_LOGGED_IN === "1";
      if (ctx.needsAuth || (ctx.envAuth && !loggedIn)) throw v2.RequestError.authRequired();
      const sessionId = `fake2-${process.pid}-${nextId()}`;
      const s = { cwd: params.cwd, title: undefined, history: [], cancelled: false, model: "fake/a", yolo: false };
      sessions.set(sessionId, s);
      save();
      return { sessionId, configOptions: configOptions(s), availableCommands: commands };
    })
    .onRequest(v2.methods.agent.session.list, () => {
      note("session/list", {});
      return {
        sessions: [...sessions.entries()].map(([sessionId, s]) => ({
          sessionId,
          cwd: s.cwd,
          title: s.title ?? null,
          updatedAt: new Date().toISOString(),
        })),
      };
    })
    .onRequest(v2.methods.agent.session.resume, async ({ params, client }) => {
      note("session/resume", { replayFrom: params.replayFrom ?? null });
      const s = sessions.get(params.sessionId);
      if (!s) throw v2.RequestError.sessionNotFound(params.sessionId);
      if (params.replayFrom?.type === "start")
        for (const update of s.history)
          await client.notify(v2.methods.client.session.update, { sessionId: params.sessionId, update });
      // v2: a current-state snapshot after any replay and before the response
      await client.notify(v2.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "state_update", state: "idle" },
      });
      return { configOptions: configOptions(s), availableCommands: commands };
    })
    .onRequest(v2.methods.agent.session.close, ({ params }) => {
      note("session/close", {});
      sessions.get(params.sessionId) && (sessions.get(params.sessionId).closed = true);
      return {};
    })
    .onRequest(v2.methods.agent.session.delete, ({ params }) => {
      note("session/delete", {});
      sessions.delete(params.sessionId);
      save();
      return {};
    })
    .onRequest(v2.methods.agent.session.setConfigOption, ({ params }) => {
      note("session/set_config_option", { configId: params.configId, type: params.type, value: params.value });
      const s = sessions.get(params.sessionId);
      if (params.configId === "model") s.model = params.value;
      if (params.configId === "yolo") s.yolo = params.value;
      return { configOptions: configOptions(s) };
    })
    .onNotification(v2.methods.agent.session.cancel, ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (s) s.cancelled = true;
    })
    .onRequest(v2.methods.agent.session.prompt, async ({ params, client }) => {
      const { sessionId } = params;
      const s = sessions.get(sessionId);
      if (!s) throw v2.RequestError.sessionNotFound(sessionId);
      s.cancelled = false;
      const text = params.prompt
        .map((b) => (b.type === "text" ? b.text : ""))
        .join(" ")
        .trim();
      note("session/prompt", { text });
      const userId = `u-${nextId()}`;
      const notify = (update) => client.notify(v2.methods.client.session.update, { sessionId, update });
      const send = async (update) => {
        s.history.push(update);
        save();
        await notify(update);
      };
      const state = (st, more = {}) => notify({ sessionUpdate: "state_update", state: st, ...more });
      const [verb] = text.split(/\s+/, 1);
      if (verb === "v1result") {
        await notify({
          sessionUpdate: "agent_message_chunk",
          messageId: "m-v1",
          content: { type: "text", text: "v1 style" },
        });
        return { stopReason: "end_turn" };
      }
      await state("running");
      await send({ sessionUpdate: "user_message", messageId: userId, content: [{ type: "text", text }] });
      if (!s.title) {
        s.title = `Fake: ${text.slice(0, 30)}`;
        await notify({ sessionUpdate: "session_info_update", title: s.title });
      }
      if (verb === "v1ack") {
        await notify({
          sessionUpdate: "agent_message_chunk",
          messageId: "m-ack",
          content: { type: "text", text: "acked" },
        });
        return { messageId: userId, stopReason: "end_turn" };
      }
      // the rest of the turn runs after the acknowledgement, as the real adapters do
      void run(verb).catch((err) => process.stderr.write(`v2 turn failed: ${err?.message}\n`));
      return { messageId: userId };

      async function run(verb) {
        await sleep(5);
        const m = `m-${nextId()}`;
        const say = (t, id = m) =>
          send({ sessionUpdate: "agent_message_chunk", messageId: id, content: { type: "text", text: t } });
        const idle = (stopReason = "end_turn", more = {}) => state("idle", { stopReason, ...more });
        switch (verb) {
          case "think":
            await send({
              sessionUpdate: "agent_thought_chunk",
              messageId: `t-${m}`,
              content: { type: "text", text: "Pondering. " },
            });
            await say("Thought about it.");
            break;
          case "upsert":
            await say("Draft");
            await send({
              sessionUpdate: "agent_message",
              messageId: m,
              content: [{ type: "text", text: "Final answer." }],
            });
            break;
          case "perm": {
            const toolCallId = `call_${nextId()}`;
            await send({
              sessionUpdate: "tool_call_update",
              toolCallId,
              kind: "execute",
              title: "echo fake",
              status: "pending",
              rawInput: { command: "echo fake" },
              content: [{ type: "terminal", terminalId: toolCallId }],
            });
            await state("requires_action");
            const answer = await client.request(v2.methods.client.session.requestPermission, {
              sessionId,
              title: "Run command?",
              description: "It prints a word",
              subject: {
                type: "tool_call",
                toolCall: { toolCallId, title: "echo fake", kind: "execute", rawInput: { command: "echo fake" } },
              },
              options: [
                { optionId: "yes", name: "Yes", kind: "allow_once" },
                { optionId: "no", name: "No", kind: "reject_once" },
              ],
            });
            await state("running");
            if (answer.outcome.outcome !== "selected" || answer.outcome.optionId === "no") {
              await send({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
              if (answer.outcome.outcome === "cancelled") return idle("cancelled");
              await say("Not allowed, fine.");
              break;
            }
            await send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
            await send({
              sessionUpdate: "terminal_update",
              terminalId: toolCallId,
              output: { data: b64("fake\n") },
              exitStatus: { exitCode: 0 },
            });
            await send({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
            await say("Ran it.");
            break;
          }
          case "slow":
            for (let i = 0; i < 200 && !s.cancelled; i++) {
              await say(`tick${i} `);
              await sleep(100);
            }
            if (s.cancelled) return idle("cancelled");
            break;
          case "hang":
            await say("hanging…");
            return;
          case "fail":
            await say("about to fail");
            return idle("error", { error: { code: -32603, message: "Query closed before response received" } });
          case "crash":
            await say("about to crash");
            await sleep(50);
            process.exit(3);
            break;
          case "v1update":
            await notify({
              sessionUpdate: "tool_call",
              toolCallId: "t-v1",
              title: "Run echo",
              kind: "execute",
              status: "pending",
            });
            return;
          case "v1chunk":
            await say("before ");
            await notify({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "v1 chunk" } });
            return;
          default:
            await say("Hello ");
            await say("from the ");
            await say("fake agent.");
        }
        await idle("end_turn", { usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 } });
      }
    });
}
