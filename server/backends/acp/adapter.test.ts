/**
 * The ACP adapter against a protocol-faithful fake agent (testing/fake-agent.mjs) spawned through the
 * real supervisor: fast, and covering what the real agents cannot be made to do on demand (crash,
 * malformed output, no loadSession, authentication, fs requests).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { until } from "@/testkit/until";
import { isApiError } from "../../errors";
import { SqliteStore } from "../../store/sqlite-store";
import { FAKE, fakeAgentHarness, HubLikeSink, text, tools } from "./testing/fake-harness";

const { paths, make, started, turn } = fakeAgentHarness();
let root: string;
let workspace: string;
beforeEach(() => {
  ({ root, workspace } = paths());
});

describe("AcpAdapter (fake agent)", () => {
  it("starts the agent, declares its capabilities and never shows env values", async () => {
    const { adapter } = await started();
    const info = adapter.info();
    expect(info).toMatchObject({
      kind: "acp",
      status: "ready",
      version: "9.9.9",
      config: { env: { SECRET_TOKEN: "***" } },
    });
    expect(JSON.stringify(info)).not.toContain("s3cr3t");
    expect(info.capabilities).toMatchObject({
      fork: false,
      revert: false,
      abort: true,
      history: true,
      interrupts: { permission: true, question: false },
    });
    expect(info.process).toMatchObject({ state: "running", restarts: 0 });
  });

  it("streams a reply as deltas, skips the agent's malformed stdout lines, and ends the turn idle", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    const state = await turn(adapter, sink, s, "hello");
    expect(text(state)).toBe("Hello from the fake agent.");
    expect(sink.events.filter((e) => e.event.type === "block.delta").length).toBe(2);
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(state.messages[1]!.usage).toEqual({ inputTokens: 10, outputTokens: 3 });
    expect(state.session!.title).toBe("Fake: hello");
    expect(state.session!.settings!.commands).toEqual([{ name: "compact", description: "Compact" }]);
    const logs = adapter.logs();
    expect(logs.some((l) => l.includes("[stdout skipped: not JSON] Fake ACP agent starting"))).toBe(true);
    expect(logs.some((l) => l.includes("[stdout skipped: not JSON] { this line is broken"))).toBe(true);
    expect(logs.some((l) => /^fake agent pid \d+$/.test(l))).toBe(true);
    // the adapter's own view matches what it published
    const loaded = await adapter.loadSession(s.id);
    expect(loaded.messages).toEqual(state.messages);
  });

  it("skips 200 malformed frames in the middle of a turn: exactly the valid chunks arrive, the agent keeps running", async () => {
    const { adapter, sink } = await started();
    const pid = adapter.info().process?.pid;
    const s = await adapter.createSession({});
    const state = await turn(adapter, sink, s, "flood");
    expect(text(state)).toBe(Array.from({ length: 20 }, (_, i) => `valid part ${i}\n`).join(""));
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(state.interrupts).toEqual([]);
    // Updates for another session, or with bad params, publish nothing anywhere.
    expect(new Set(sink.events.map((e) => e.sessionId))).toEqual(new Set([s.id]));
    const info = adapter.info();
    expect(info.status).toBe("ready");
    expect(info.process).toMatchObject({ state: "running", restarts: 0, pid });
    const skipped = adapter.logs().filter((l) => l.startsWith("[stdout skipped:"));
    // Per 10 frames: garbage, truncated JSON and (every third) invalid UTF-8 are not JSON; the array is not an object.
    expect(skipped.filter((l) => l.startsWith("[stdout skipped: not JSON]")).length).toBeGreaterThanOrEqual(40);
    expect(skipped.filter((l) => l.startsWith("[stdout skipped: not a JSON object]")).length).toBe(20);
    // And the session goes on.
    const next = await turn(adapter, sink, s, "hello");
    expect(text(next)).toBe("Hello from the fake agent.");
  });

  it("turns permission requests (ids from 0) into interrupts answered allow, reject and dismiss", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({ title: "perm" });
    await adapter.prompt(s.id, { parts: [{ type: "text", text: "perm" }] });
    let it = await until(() => sink.state(s.id).interrupts[0]);
    expect(it.permission!.options.map((o) => `${o.id}:${o.kind}`)).toEqual([
      "yes:allow_once",
      "always:allow_always",
      "no:reject",
    ]);
    expect(it.permission!.patterns).toEqual(["echo fake"]);
    expect(sink.state(s.id).session!.status).toBe("waiting");
    expect(tools(sink.state(s.id))[0]!.status).toBe("awaiting-approval");
    await adapter.answerInterrupt(s.id, it.id, { decision: "allow_once" });
    await until(() => text(sink.state(s.id)) === "Ran it (yes)." && sink.state(s.id).session!.status === "idle");
    expect(tools(sink.state(s.id))[0]).toMatchObject({ status: "completed", output: "fake\n", exitCode: 0 });
    await expect(adapter.answerInterrupt(s.id, it.id, { decision: "allow_once" })).rejects.toMatchObject({
      code: "conflict",
    });

    await adapter.prompt(s.id, { parts: [{ type: "text", text: "perm" }] });
    it = await until(() => sink.state(s.id).interrupts[0]);
    await expect(adapter.answerInterrupt(s.id, it.id, { answers: [["x"]] })).rejects.toMatchObject({
      code: "bad_request",
    });
    await adapter.answerInterrupt(s.id, it.id, { decision: "reject", message: "no thanks" });
    await until(() => text(sink.state(s.id)) === "Not allowed, fine.");
    expect(tools(sink.state(s.id)).at(-1)).toMatchObject({ status: "denied" });

    await adapter.prompt(s.id, { parts: [{ type: "text", text: "perm" }] });
    it = await until(() => sink.state(s.id).interrupts[0]);
    await adapter.answerInterrupt(s.id, it.id, { dismiss: true });
    await until(() => sink.state(s.id).session!.status === "idle");
    expect(sink.events.some((e) => e.event.type === "interrupt.resolved" && e.event.outcome === "cancelled")).toBe(
      true,
    );
    await expect(adapter.answerInterrupt(s.id, "perm_nope", { dismiss: true })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("abort cancels the turn (and answers a pending permission cancelled); an agent ignoring cancel is ended locally", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    await adapter.prompt(s.id, { parts: [{ type: "text", text: "slow" }] });
    await until(() => text(sink.state(s.id)).includes("tick2"));
    await adapter.abort(s.id);
    await until(() => sink.state(s.id).session!.status === "idle");
    const a = sink.state(s.id).messages.at(-1)!;
    expect(a.error).toMatchObject({ aborted: true });
    expect(text(sink.state(s.id))).not.toContain("tick150");

    await adapter.prompt(s.id, { parts: [{ type: "text", text: "hang" }] });
    await until(() => text(sink.state(s.id)) === "hanging…");
    await adapter.abort(s.id);
    await until(() => sink.state(s.id).session!.status === "idle", "idle after the cancel", 5000);
    expect(sink.state(s.id).messages.at(-1)!.error).toMatchObject({ aborted: true });
  });

  it("serves fs/read_text_file and fs/write_text_file only inside the session's directory", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    expect((await turn(adapter, sink, s, `read ${path.join(workspace, "note.txt")}`)) && text(sink.state(s.id))).toBe(
      "content: line1\nline2\nline3\n",
    );
    await turn(adapter, sink, s, `read ${path.join(root, "secret.txt")}`);
    expect(text(sink.state(s.id))).toMatch(/^read failed: .*outside/);
    await turn(adapter, sink, s, `read ${path.join(workspace, "link-out.txt")}`);
    expect(text(sink.state(s.id))).toMatch(/^read failed: .*outside/);
    await turn(adapter, sink, s, `write ${path.join(workspace, "new.txt")}`);
    expect(text(sink.state(s.id))).toBe("written");
    expect(fs.readFileSync(path.join(workspace, "new.txt"), "utf8")).toBe("written by the fake agent");
    await turn(adapter, sink, s, `write ${path.join(workspace, "link-out.txt")}`);
    expect(text(sink.state(s.id))).toMatch(/^write failed/);
    expect(fs.readFileSync(path.join(root, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("refuses a write through a dangling symlink or a linked folder that leads outside (nothing is written there)", async () => {
    // A repository may ship `notes.md -> ~/.ssh/authorized_keys` with the target absent.
    const absent = path.join(root, "authorized_keys");
    fs.symlinkSync(absent, path.join(workspace, "notes.md"));
    fs.mkdirSync(path.join(root, "outside-dir"));
    fs.symlinkSync(path.join(root, "outside-dir"), path.join(workspace, "linked-dir"));
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    await turn(adapter, sink, s, `write ${path.join(workspace, "notes.md")}`);
    expect(text(sink.state(s.id))).toMatch(/^write failed: .*outside/);
    expect(fs.existsSync(absent)).toBe(false);
    await turn(adapter, sink, s, `write ${path.join(workspace, "linked-dir", "new.txt")}`);
    expect(text(sink.state(s.id))).toMatch(/^write failed: .*outside/);
    expect(fs.readdirSync(path.join(root, "outside-dir"))).toEqual([]);
    await turn(adapter, sink, s, `read ${path.join(workspace, "notes.md")}`);
    expect(text(sink.state(s.id))).toMatch(/^read failed/);
    // A link that stays inside is followed, as before.
    fs.symlinkSync(path.join(workspace, "note.txt"), path.join(workspace, "link-in.txt"));
    await turn(adapter, sink, s, `write ${path.join(workspace, "link-in.txt")}`);
    expect(text(sink.state(s.id))).toBe("written");
    expect(fs.readFileSync(path.join(workspace, "note.txt"), "utf8")).toBe("written by the fake agent");
    fs.writeFileSync(path.join(workspace, "note.txt"), "line1\nline2\nline3\n");
  });

  it("a crash mid-turn fails the turn with a notice, restarts the agent, and the next prompt works", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    await turn(adapter, sink, s, "hello");
    const pid = adapter.pid;
    await turn(adapter, sink, s, "crash");
    const failed = sink.state(s.id).messages.at(-1)!;
    expect(failed.error).toMatchObject({ name: "AgentExited", message: expect.stringContaining("exited with code 3") });
    expect(failed.blocks.some((b) => b.kind === "notice" && b.level === "error")).toBe(true);
    expect(sink.state(s.id).lastError?.message).toContain("exited with code 3");
    expect(sink.backends.some((b) => b.status === "down" && b.error?.includes("exited with code 3"))).toBe(true);
    await until(() => adapter.info().status === "ready" && adapter.pid !== pid);
    await until(() =>
      sink
        .state(s.id)
        .messages.at(-1)!
        .blocks.some((b) => b.kind === "notice" && b.level === "info" && b.text.includes("restarted")),
    );
    const state = await turn(adapter, sink, s, "hello");
    expect(text(state)).toBe("Hello from the fake agent.");
    expect(adapter.info().process!.restarts).toBe(1);
  });

  it("carries an @-mentioned file (a file:// part) as a resource link, and declares workspace mentions", async () => {
    const { adapter, sink } = await started();
    expect(adapter.info().capabilities.mentions).toEqual({ search: "workspace", carry: "file" });
    const s = await adapter.createSession({});
    const before = sink.events.length;
    const url = `file://${workspace}/src/a.ts`;
    await adapter.prompt(s.id, {
      parts: [
        { type: "text", text: "links @src/a.ts" },
        { type: "file", mime: "text/plain", url, filename: "src/a.ts" },
      ],
    });
    await until(
      () => sink.events.slice(before).some((e) => e.event.type === "session.status" && e.event.status === "idle"),
      "the links turn",
      15_000,
    );
    expect(text(sink.state(s.id))).toBe(`src/a.ts ${url} text/plain`);
  });

  it("restarts the agent on request; sessions reattach on their next prompt", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    const pid = adapter.pid;
    await adapter.restart();
    await until(() => adapter.info().status === "ready" && adapter.pid !== undefined && adapter.pid !== pid);
    expect(adapter.info().process!.lastExit).toBe("killed by SIGTERM");
    expect(text(await turn(adapter, sink, s, "hello"))).toBe("Hello from the fake agent.");
  });

  it("reloads a session's history from the agent (session/load) in a new console", async () => {
    const store = new SqliteStore(":memory:");
    const stateFile = path.join(root, "shared-state.json");
    const first = await started({ env: { FAKE_STATE: stateFile } }, new HubLikeSink(), store);
    const s = await first.adapter.createSession({});
    await turn(first.adapter, first.sink, s, "think");
    await first.adapter.stop();
    const second = await started({ env: { FAKE_STATE: stateFile } }, new HubLikeSink(), store);
    const loaded = await second.adapter.loadSession(s.id);
    expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(loaded.messages[0]!.blocks).toMatchObject([{ kind: "text", text: "think" }]);
    expect(loaded.messages[1]!.blocks.map((b) => b.kind)).toEqual(["reasoning", "text"]);
    expect((await second.adapter.listSessions({ limit: 10 })).items.map((x) => x.id)).toContain(s.id);
    const state = await turn(second.adapter, second.sink, s, "hello");
    expect(text(state)).toBe("Hello from the fake agent.");
  });

  it("keeps the transcript of an agent without loadSession in the store", async () => {
    const store = new SqliteStore(":memory:");
    const first = await started({ env: { FAKE_NO_LOAD: "1" } }, new HubLikeSink(), store);
    const s = await first.adapter.createSession({ title: "kept by the console" });
    await turn(first.adapter, first.sink, s, "hello");
    await first.adapter.stop();
    const second = await started({ env: { FAKE_NO_LOAD: "1" } }, new HubLikeSink(), store);
    expect((await second.adapter.listSessions({ limit: 10 })).items.map((x) => x.title)).toEqual([
      "kept by the console",
    ]);
    const loaded = await second.adapter.loadSession(s.id);
    expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(loaded.messages[1]!.blocks).toMatchObject([{ kind: "text", text: "Hello from the fake agent." }]);
    // the agent cannot reopen it: the conversation continues in a new agent session, with a notice
    await turn(second.adapter, second.sink, s, "hello");
    const after = await second.adapter.loadSession(s.id);
    expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(after.messages[1]!.blocks.some((b) => b.kind === "notice" && b.level === "warn")).toBe(true);
    expect(store.getTranscript("fake", s.id)!.messages).toHaveLength(4);
    expect(store.getTranscript("fake", s.id)!.agentSessionId).not.toBe(s.id);
  });

  it("shows an agent that needs a login as auth-required with its own instructions", async () => {
    const { adapter } = await started({ env: { FAKE_AUTH: "1" } });
    const err = await adapter.createSession({}).catch((e: unknown) => e);
    expect(isApiError(err) && err.code).toBe("backend_down");
    expect(adapter.info()).toMatchObject({
      status: "auth-required",
      error: expect.stringContaining("Run `fake login` in a terminal"),
    });
  });

  it("an agent that reports its own login (_auth/status_update): not logged in is auth-required before any New session; a login is ready", async () => {
    const { adapter } = make({ env: { FAKE_AUTH_STATUS: "none" } });
    await adapter.start();
    await until(
      () => !["starting", "connecting"].includes(adapter.info().status),
      "the handshake and the agent's report",
    );
    expect(adapter.info()).toMatchObject({
      status: "auth-required",
      error: expect.stringContaining('Fake is not logged in (it reports "Not logged in")'),
    });
    expect(adapter.info().error).toContain("Run `fake login` in a terminal");
    const err = await adapter.createSession({}).catch((e: unknown) => e);
    expect(isApiError(err) && err.code).toBe("backend_down");

    const logged = make({ env: { FAKE_AUTH_STATUS: "api_key" } });
    await logged.adapter.start();
    await until(
      () => !["starting", "connecting"].includes(logged.adapter.info().status),
      "the handshake and the agent's report",
    );
    expect(logged.adapter.info().status).toBe("ready");
    expect((await logged.adapter.createSession({})).id).toMatch(/^fake-/);
  });

  it("an env_var method: auth-required with its methods until a value is entered, then authenticate and ready; the value stays on the server", async () => {
    const store = new SqliteStore(":memory:");
    const { adapter } = make({ env: { FAKE_ENV_AUTH: "1" } }, undefined, store);
    await adapter.start();
    await until(() => adapter.info().status === "auth-required", "auth-required after the handshake");
    const info = adapter.info();
    expect(info.error).toContain("Use FAKE_KEY");
    expect(info.authMethods).toEqual([
      { id: "fake-login", name: "Log in to Fake", description: "Run `fake login` in a terminal", type: "agent" },
      {
        id: "fake-key",
        name: "Use FAKE_KEY",
        description: "Set FAKE_KEY",
        type: "env_var",
        vars: [{ name: "FAKE_KEY", set: false }],
      },
    ]);
    await expect(adapter.setCredentials("fake-key", { OTHER: "x" })).rejects.toMatchObject({ code: "bad_request" });
    await expect(adapter.setCredentials("fake-login", { FAKE_KEY: "x" })).rejects.toMatchObject({
      code: "bad_request",
    });

    await adapter.setCredentials("fake-key", { FAKE_KEY: "bad" });
    await until(
      () => adapter.info().status === "auth-required" && (adapter.info().process?.restarts ?? 0) >= 1,
      "a refused key",
    );
    expect(adapter.info().error).toContain("FAKE_KEY was refused");

    await adapter.setCredentials("fake-key", { FAKE_KEY: "sk-secret-value" });
    await until(() => adapter.info().status === "ready", "ready with the key");
    expect(adapter.logs().join("\n")).toContain("authenticated with fake-key");
    expect(JSON.stringify(adapter.info())).not.toContain("sk-secret-value");
    expect(adapter.info().authMethods![1]!.vars).toEqual([{ name: "FAKE_KEY", set: true }]);
    const s = await adapter.createSession({});
    expect(s.id).toMatch(/^fake-/);
    await adapter.stop();

    // kept across a console restart (the store), passed to the agent again
    const again = make({ env: { FAKE_ENV_AUTH: "1" } }, undefined, store);
    await again.adapter.start();
    await until(() => again.adapter.info().status === "ready", "ready after a restart");
  });

  it("keeps the agent's error details (data.details) in the turn's error", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    const st = await turn(adapter, sink, s, "fail");
    const err = sink.events.find((e) => e.sessionId === s.id && e.event.type === "error");
    expect(err?.event).toMatchObject({ message: expect.stringContaining("Query closed before response received") });
    expect(JSON.stringify(st.messages.at(-1))).toContain("Query closed before response received");
  });

  it("exposes config options and modes as session settings and changes them", async () => {
    const { adapter, sink } = await started();
    const s = await adapter.createSession({});
    expect(s.settings!.options.map((o) => `${o.id}:${o.type}:${String(o.value)}`)).toEqual([
      "model:select:fake/a",
      "yolo:boolean:false",
    ]);
    expect(s.model).toEqual({ provider: "fake", id: "a" });
    let next = await adapter.setSessionOption(s.id, "model", "fake/b");
    expect(next.model).toEqual({ provider: "fake", id: "b" });
    next = await adapter.setSessionOption(s.id, "yolo", true);
    expect(next.settings!.options.find((o) => o.id === "yolo")!.value).toBe(true);
    await expect(adapter.setSessionOption(s.id, "model", "nope")).rejects.toMatchObject({ code: "bad_request" });
    expect(sink.state(s.id).session!.settings!.options.find((o) => o.id === "model")!.value).toBe("fake/b");

    const m = await started({ env: { FAKE_MODES: "1" } });
    const s2 = await m.adapter.createSession({});
    expect(s2.settings!.options[0]).toMatchObject({ id: "mode", source: "mode", value: "ask" });
    const s3 = await m.adapter.setSessionOption(s2.id, "mode", "code");
    expect(s3.settings!.options[0]!.value).toBe("code");
  });

  it("answers 404 for unknown sessions and lists/searches known ones", async () => {
    const { adapter } = await started();
    await expect(adapter.getSession("nope")).rejects.toMatchObject({ code: "not_found" });
    await expect(adapter.loadSession("nope")).rejects.toMatchObject({ code: "not_found" });
    await adapter.createSession({ title: "alpha one" });
    await adapter.createSession({ title: "beta two" });
    const all = await adapter.listSessions({ limit: 10 });
    expect(all.items.map((x) => x.title).sort()).toEqual(["alpha one", "beta two"]);
    expect((await adapter.listSessions({ limit: 10, search: "BETA" })).items.map((x) => x.title)).toEqual(["beta two"]);
    const page = await adapter.listSessions({ limit: 1 });
    expect(page.items).toHaveLength(1);
    expect(page.nextCursor).toBeDefined();
    await expect(adapter.createSession({ directory: root })).rejects.toMatchObject({ code: "forbidden" });
  });

  it("an agent that refuses --acp as an unknown argument (Gemini CLI before 0.33) is started again with --experimental-acp", async () => {
    const { adapter, sink } = make({ command: [process.execPath, FAKE, "--acp"], env: { FAKE_OLD_GEMINI: "1" } });
    await adapter.start();
    await adapter.ready();
    expect(adapter.info().config).toMatchObject({ command: [process.execPath, FAKE, "--acp"] });
    const s = await adapter.createSession({});
    await turn(adapter, sink, s, "hello");
  });

  it("reports a command that does not exist as down", async () => {
    const { adapter } = make({ command: ["no-such-agent-binary-xyz", "--acp"], readyTimeoutMs: 300 });
    await adapter.start();
    await until(() => adapter.info().status === "down");
    expect(adapter.info().error).toContain("command not found: no-such-agent-binary-xyz");
    await expect(adapter.createSession({})).rejects.toSatisfy(
      (e: unknown) => isApiError(e) && e.code === "backend_down",
    );
  });
});
