/**
 * ACP v2 through the adapter, against the fake agent serving v1 and v2 with the SDK's protocol router
 * and v2 `agent()` (testing/fake-agent-v2.mjs, FAKE_V2=1), spawned through the real supervisor: the
 * version is negotiated (v2 here, v1 with the v1-only fake and with `acpVersion: 1`), a turn ends on
 * its idle `state_update` and not on the prompt's acknowledgement, upserts replace by id, permission
 * requests show their title and subject, session list / resume / close are used as declared, and a
 * v2 agent answering in v1's shapes fails the turn with an error the user sees.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { until } from "@/testkit/until";
import { SqliteStore } from "../../store/sqlite-store";
import { fakeAgentHarness, HubLikeSink, text, tools } from "./testing/fake-harness";

const { make, started, turn, paths } = fakeAgentHarness({ env: { FAKE_V2: "1" } });

/** The requests the fake agent noted on stderr (`v2 <method> <params>`, `v1 session/prompt`). */
const calls = (logs: string[], method: string) => logs.filter((l) => l.startsWith(`v2 ${method} `));

describe("AcpAdapter over ACP v2 (fake agent, SDK agent side)", () => {
  it("negotiates v2 with an agent that offers it, shows it and logs it once per process", async () => {
    const { adapter } = await started();
    expect(adapter.info()).toMatchObject({ status: "ready", version: "9.9.9", protocol: "ACP v2" });
    const logs = adapter.logs();
    expect(logs.filter((l) => l.includes("ACP v2 agreed with Fake 9.9.9"))).toHaveLength(1);
    expect(calls(logs, "initialize")).toEqual(['v2 initialize {"protocolVersion":2}']);
    // v2 declares sessions as a whole (list, resume, close), delete on its own; no fork here
    expect(adapter.info().capabilities).toMatchObject({ delete: true, fork: false, history: true });
  });

  it("speaks v1 with a v1-only agent, and with a v2 agent whose backend sets acpVersion: 1", async () => {
    const v1only = await started({ env: { FAKE_V2: "" } });
    expect(v1only.adapter.info().protocol).toBe("ACP v1");
    expect(v1only.adapter.logs().some((l) => l.includes("ACP v1 agreed with Fake 9.9.9"))).toBe(true);

    const forced = await started({ acpVersion: 1 });
    expect(forced.adapter.info().protocol).toBe("ACP v1 (v2 turned off)");
    const s = await forced.adapter.createSession({});
    expect(text(await turn(forced.adapter, forced.sink, s, "hello"))).toBe("Hello from the fake agent.");
    const logs = forced.adapter.logs();
    expect(logs).toContain("v1 session/prompt");
    expect(calls(logs, "initialize")).toEqual([]);
  });

  it("streams a turn that ends on its idle state_update (the prompt answer is an acknowledgement), with usage and commands", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    expect(s.settings!.commands).toEqual([{ name: "compact", description: "Compact" }]);
    expect(s.settings!.options.map((o) => `${o.id}:${o.type}:${String(o.value)}`)).toEqual([
      "model:select:fake/a",
      "yolo:boolean:false",
    ]);
    const state = await turn(adapter, sink, s, "hello");
    expect(text(state)).toBe("Hello from the fake agent.");
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(state.messages[0]!.blocks).toMatchObject([{ kind: "text", text: "hello" }]);
    expect(state.messages[1]!.usage).toEqual({ inputTokens: 10, outputTokens: 3 });
    expect(state.messages[1]!.error).toBeUndefined();
    expect(state.session!.title).toBe("Fake: hello");

    // config options are set with v2's typed values
    const next = await adapter.setSessionOption(s.id, "model", "fake/b");
    expect(next.model).toEqual({ provider: "fake", id: "b" });
    await adapter.setSessionOption(s.id, "yolo", true);
    expect(calls(adapter.logs(), "session/set_config_option")).toEqual([
      'v2 session/set_config_option {"configId":"model","type":"id","value":"fake/b"}',
      'v2 session/set_config_option {"configId":"yolo","type":"boolean","value":true}',
    ]);
  });

  it("an upsert replaces the block of its message id; a thought stays reasoning", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    let state = await turn(adapter, sink, s, "upsert");
    expect(text(state)).toBe("Final answer.");
    state = await turn(adapter, sink, s, "think");
    expect(state.messages.at(-1)!.blocks.map((b) => b.kind)).toEqual(["reasoning", "text"]);
  });

  it("a permission request shows its title, description and subject; the terminal's output feeds the tool", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    await adapter.prompt(s.id, { parts: [{ type: "text", text: "perm" }] });
    const it = await until(() => sink.state(s.id).interrupts[0]);
    expect(it.title).toBe("Run command? — It prints a word");
    expect(it.permission!.patterns).toEqual(["echo fake"]);
    expect(it.permission!.options.map((o) => o.kind)).toEqual(["allow_once", "reject"]);
    expect(tools(sink.state(s.id))[0]).toMatchObject({ status: "awaiting-approval" });
    await adapter.answerInterrupt(s.id, it.id, { decision: "allow_once" });
    await until(() => text(sink.state(s.id)) === "Ran it." && sink.state(s.id).session!.status === "idle");
    expect(tools(sink.state(s.id))[0]).toMatchObject({ status: "completed", output: "fake\n", exitCode: 0 });
  });

  it("Stop: the cancel's idle state ends the turn; an agent's error stop reason fails it with its message", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    await adapter.prompt(s.id, { parts: [{ type: "text", text: "slow" }] });
    await until(() => text(sink.state(s.id)).includes("tick2"));
    await adapter.abort(s.id);
    await until(() => sink.state(s.id).session!.status === "idle");
    expect(sink.state(s.id).messages.at(-1)!.error).toMatchObject({ aborted: true });

    const state = await turn(adapter, sink, s, "fail");
    expect(state.messages.at(-1)!.error).toMatchObject({
      name: "AgentError",
      message: expect.stringContaining("Query closed before response received"),
    });
  });

  it.each([
    ["v1result", "answered the prompt with a result in ACP v1's shape"],
    ["v1ack", "ended the prompt with ACP v1's stopReason and sent no state_update"],
    ["v1update", `ACP v1's "tool_call" update`],
    ["v1chunk", `"agent_message_chunk" update that is not in ACP v2's shape`],
  ])("a v2 agent answering in v1's shape (%s) fails the turn with an error the user sees", async (script, says) => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    const state = await turn(adapter, sink, s, script);
    const last = state.messages.at(-1)!;
    expect(last.role).toBe("assistant");
    expect(last.error).toMatchObject({ name: "ProtocolError", message: expect.stringContaining(says) });
    expect(last.error!.message).toContain('"acpVersion": 1');
    expect(state.lastError?.message).toContain(says);
    // the session goes on
    expect(text(await turn(adapter, sink, s, "hello"))).toBe("Hello from the fake agent.");
  });

  it("uses the declared session/list and session/resume (after a restart), and session/resume from the start to load", async () => {
    const stateFile = path.join(paths().root, "v2-sessions.json");
    const { adapter, sink } = await started({ env: { FAKE_STATE: stateFile } });
    const s = await adapter.createSession({});
    await turn(adapter, sink, s, "think");
    await adapter.restart();
    await until(() => adapter.info().status === "ready" && (adapter.info().process?.restarts ?? 0) === 1);
    expect(text(await turn(adapter, sink, s, "hello"))).toBe("Hello from the fake agent.");
    expect(calls(adapter.logs(), "session/resume")).toEqual(['v2 session/resume {"replayFrom":null}']);
    expect((await adapter.listSessions({ limit: 10 })).items.map((x) => x.id)).toContain(s.id);
    // the agent's stderr (where the fake notes each call) is read as it comes
    await until(() => calls(adapter.logs(), "session/list").length > 0, "session/list in the agent's log");

    // a console that never saw the session loads it from the agent: resume replaying from the start
    await adapter.stop();
    const other = await started({ env: { FAKE_STATE: stateFile } }, new HubLikeSink(), new SqliteStore(":memory:"));
    await other.adapter.listSessions({ limit: 10 });
    const loaded = await other.adapter.loadSession(s.id);
    expect(calls(other.adapter.logs(), "session/resume")).toEqual([
      'v2 session/resume {"replayFrom":{"type":"start"}}',
    ]);
    expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(loaded.messages[1]!.blocks.map((b) => b.kind)).toEqual(["reasoning", "text"]);
  });

  it("the start-up login probe opens a throwaway session and closes it (session/close) where sessions are declared", async () => {
    const { adapter } = make({ env: { FAKE_ENV_AUTH: "1" } });
    await adapter.start();
    await until(() => adapter.info().status === "auth-required", "auth-required after the probe");
    expect(adapter.info().error).toContain("Use FAKE_KEY");
    await adapter.setCredentials("fake-key", { FAKE_KEY: "sk-v2" });
    await until(() => adapter.info().status === "ready", "ready with the key");
    expect(calls(adapter.logs(), "auth/login")).toEqual(['v2 auth/login {"methodId":"fake-key"}']);

    // an agent with a login of its own: the probe's session opens, and is closed at once
    const own = make({ env: { FAKE_ENV_AUTH: "1", FAKE_LOGGED_IN: "1" } });
    await own.adapter.start();
    await until(() => own.adapter.info().status === "ready", "ready after the probe");
    expect(calls(own.adapter.logs(), "session/new")).toHaveLength(1);
    expect(calls(own.adapter.logs(), "session/close")).toHaveLength(1);
  });

  it("without a declared session capability: no session/list, resume or close; a restart reopens with session/new", async () => {
    const { adapter, sink } = await started({ env: { FAKE_NO_LOAD: "1" } });
    expect(adapter.info().capabilities.delete).toBe(false);
    const s = await adapter.createSession({});
    await turn(adapter, sink, s, "hello");
    await adapter.listSessions({ limit: 10 });
    await adapter.restart();
    await until(() => adapter.info().status === "ready" && (adapter.info().process?.restarts ?? 0) === 1);
    await turn(adapter, sink, s, "hello");
    const logs = adapter.logs();
    for (const m of ["session/list", "session/resume", "session/close"]) expect(calls(logs, m)).toEqual([]);
    expect(calls(logs, "session/new")).toHaveLength(2);
  });
});
