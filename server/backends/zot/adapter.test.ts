/**
 * The zot adapter against the protocol-faithful fake `zot rpc` (testkit/fake-zot.ts) and the
 * scripted model, through the real hub: what the conformance suite does not cover — the token
 * handshake, another protocol version, a missing credential, the earlier conversation given to a new
 * process, model switching, compaction with either ending, queued prompts, an agent that ignores
 * abort, and attachments.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Message, ToolBlock } from "@/lib/model";
import { until } from "@/testkit/until";
import { isApiError } from "../../errors";
import type { Hub } from "../../hub/hub";
import { SqliteStore } from "../../store/sqlite-store";
import { registerAdapterHarness } from "../../../testkit/adapter-harness";
import { ZotAdapter, type ZotAdapterOptions } from "./adapter";

const ZOT = path.resolve(import.meta.dirname, "../../../testkit/fake-zot-bin/zot");

const h = registerAdapterHarness("sb-zot-");

const zotCommand = () => [ZOT, "rpc", "--provider", "openai", "--base-url", h.model.url, "--model", "fake-model"];

function make(opts: Partial<ZotAdapterOptions> = {}, store = new SqliteStore(":memory:")) {
  const r = h.onHub(
    (hub) =>
      new ZotAdapter(
        {
          id: "zot",
          label: "zot",
          command: zotCommand(),
          env: { OPENAI_API_KEY: "sk-test" },
          cwd: h.workspace,
          workspace: h.workspace,
          store,
          ...opts,
        },
        hub,
      ),
  );
  return { ...r, store };
}

async function started(opts: Partial<ZotAdapterOptions> = {}, store?: SqliteStore) {
  const r = make(opts, store);
  await r.adapter.start();
  await r.adapter.ready();
  return r;
}

const replies = (messages: Message[]) => messages.filter((m) => m.role === "assistant");
const textOf = (m: Message | undefined) => m?.blocks.flatMap((b) => (b.kind === "text" ? [b.text] : [])).join("") ?? "";
const noticesOf = (m: Message | undefined) => m?.blocks.flatMap((b) => (b.kind === "notice" ? [b.text] : [])) ?? [];

async function turn(r: { adapter: ZotAdapter; hub: Hub }, sessionId: string, text: string, extra: object = {}) {
  const ch = await r.hub.open("zot", sessionId);
  const before = replies(ch.state.messages).length;
  await r.adapter.prompt(sessionId, { parts: [{ type: "text", text }], ...extra });
  await until(
    () =>
      replies(ch.state.messages).length > before &&
      ch.state.session?.status === "idle" &&
      replies(ch.state.messages).at(-1)?.completedAt,
    `the turn "${text}" to end`,
    20_000,
  );
  return { ch, reply: replies(ch.state.messages).at(-1)! };
}

describe("zot adapter: start-up", () => {
  it("a wrong token (a wrapper that sets its own) is a clear start-up error: the backend is down and a prompt fails saying why", async () => {
    const wrapper = ["sh", "-c", 'ZOTCORE_RPC_TOKEN=stale-token exec "$0" "$@"', ...zotCommand()];
    const r = make({ command: wrapper });
    await r.adapter.start();
    await until(() => r.adapter.info().status === "down", "the backend to be down");
    expect(r.adapter.info().error).toMatch(/refused the console's ZOTCORE_RPC_TOKEN \("invalid token"\)/);
    expect(r.adapter.logs().join("\n")).toContain("zot: rpc: bad auth token");
    const s = await r.adapter.createSession({ title: "token" });
    const ch = await r.hub.open("zot", s.id);
    await r.adapter.prompt(s.id, { parts: [{ type: "text", text: "hello?" }] });
    await until(
      () => ch.state.session?.status === "idle" && replies(ch.state.messages).at(-1)?.error,
      "the failed turn",
    );
    expect(replies(ch.state.messages).at(-1)!.error!.message).toContain("invalid token");
    expect(ch.state.lastError?.message).toContain("invalid token");
  });

  it("refuses another protocol version, and says what a missing credential is", async () => {
    const v2 = make({ env: { OPENAI_API_KEY: "sk-test", FAKE_ZOT_PROTOCOL_VERSION: "2" } });
    await v2.adapter.start();
    await until(() => v2.adapter.info().status === "down", "down");
    expect(v2.adapter.info().error).toContain("zot speaks RPC protocol version 2; Switchboard speaks version 1");
    const nokey = make({ env: { OPENAI_API_KEY: "" } });
    await nokey.adapter.start();
    await until(() => nokey.adapter.info().status === "down", "down");
    expect(nokey.adapter.info().error).toBe("zot exited before it answered hello: zot: no credential for openai");
  });

  it("each process gets --cwd its session's directory and a fresh random ZOTCORE_RPC_TOKEN of its own", async () => {
    const log = path.join(h.root, "spawns.log");
    fs.rmSync(log, { force: true });
    // A wrapper that records what zot was started with, then runs it.
    const wrapper = [
      "sh",
      "-c",
      'printf "%s|%s\\n" "$ZOTCORE_RPC_TOKEN" "$*" >> "$SPAWN_LOG"; exec "$0" "$@"',
      ...zotCommand(),
    ];
    const r = await started({ command: wrapper, env: { OPENAI_API_KEY: "sk-test", SPAWN_LOG: log } });
    const dirs = ["a", "b"].map((d) => path.join(h.workspace, `tok-${d}`));
    for (const dir of dirs) fs.mkdirSync(dir, { recursive: true });
    for (const [i, dir] of dirs.entries()) {
      h.model.enqueue({ text: `reply ${i}` });
      const s = await r.adapter.createSession({ title: `token ${i}`, directory: dir });
      await turn(r, s.id, `prompt ${i}`);
    }
    const spawns = fs
      .readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => ({ token: l.slice(0, l.indexOf("|")), args: l.slice(l.indexOf("|") + 1) }));
    const sessions = dirs.map((dir) => spawns.find((s) => s.args.endsWith(`--cwd ${dir}`)));
    expect(sessions.every(Boolean), JSON.stringify(spawns)).toBe(true);
    for (const s of spawns) expect(s.token).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(spawns.map((s) => s.token)).size).toBe(spawns.length);
  });

  it("is ready with zot's version, models and honest capabilities", async () => {
    const r = await started();
    const info = r.adapter.info();
    expect(info).toMatchObject({
      kind: "zot",
      status: "ready",
      version: expect.stringContaining("fake"),
      config: { env: { OPENAI_API_KEY: "***" } },
    });
    expect(info.capabilities).toMatchObject({
      fork: false,
      revert: false,
      diff: false,
      compact: true,
      models: true,
      abort: true,
      interrupts: { permission: false, question: false, input: false },
    });
    const models = await r.adapter.models();
    expect(models.items.map((m) => m.id)).toEqual(["fake-model", "fake-model-2"]);
    expect(models.default).toEqual({ provider: "openai", id: "fake-model" });
  });
});

describe("zot adapter: sessions", () => {
  it("a tool runs in the session's directory; history and the next prompt survive a console restart, with the earlier conversation given to the new process", async () => {
    const store = new SqliteStore(":memory:");
    const sub = path.join(h.workspace, "proj");
    fs.mkdirSync(sub, { recursive: true });
    const r = await started({}, store);
    const s = await r.adapter.createSession({ directory: sub });
    expect(s.directory).toBe(sub);
    h.model.enqueue(
      { toolCalls: [{ name: "write", arguments: { path: "fav.txt", content: "teal\n" } }] },
      { text: "Noted: your favourite colour is teal." },
    );
    const first = await turn(r, s.id, "My favourite colour is teal. Write it down.");
    expect(fs.readFileSync(path.join(sub, "fav.txt"), "utf8")).toBe("teal\n");
    const tool = first.reply.blocks.find((b): b is ToolBlock => b.kind === "tool")!;
    expect(tool).toMatchObject({ tool: "write", status: "completed", diff: [{ path: "fav.txt", status: "added" }] });
    expect(first.ch.state.session!.title).toBe("My favourite colour is teal. Write it down.");
    await h.stop(r);

    // A new console on the same store: the history is there, the next prompt goes to a new process.
    const again = await started({}, store);
    expect((await again.adapter.listSessions({ limit: 10 })).items.map((x) => x.id)).toContain(s.id);
    const loaded = await again.adapter.loadSession(s.id);
    expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    h.model.enqueue({ text: "Teal, as you said." });
    const next = await turn(again, s.id, "What is my favourite colour?");
    expect(textOf(next.reply)).toBe("Teal, as you said.");
    expect(noticesOf(next.reply)).toEqual([
      "New zot process for this session: zot keeps no history, so Switchboard gave it the earlier conversation as context (all 2 messages).",
    ]);
    // The earlier conversation reached the new process over stdin, ahead of the prompt; its command line holds none of it.
    const users = h.model.requests
      .at(-1)!
      .messages.filter((m) => m.role === "user")
      .map((m) => JSON.stringify(m.content));
    expect(users).toHaveLength(1);
    expect(users[0]).toContain("My favourite colour is teal. Write it down.");
    expect(users[0]).toContain("Noted: your favourite colour is teal.");
    expect(users[0]).toContain("[tool write");
    expect(users[0]).toContain("What is my favourite colour?");
    expect(String(h.model.requests.at(-1)!.messages.find((m) => m.role === "system")?.content)).not.toContain("teal");
    const cmdline = fs.readFileSync(`/proc/${again.adapter.pidOf(s.id)}/cmdline`, "utf8");
    expect(cmdline).not.toContain("teal");
    expect(cmdline).not.toContain("--append-system-prompt");
    // the process lives on: the turn after that gets no context again
    h.model.enqueue({ text: "Still teal." });
    const third = await turn(again, s.id, "And now?");
    expect(noticesOf(third.reply)).toEqual([]);
    expect(again.adapter.pidOf(s.id)).toBeTypeOf("number");
  });

  it("a turn cut by a console stop is shown ended, as interrupted, after the restart", async () => {
    const store = new SqliteStore(":memory:");
    const r = await started({}, store);
    const s = await r.adapter.createSession({});
    const ch = await r.hub.open("zot", s.id);
    h.model.enqueue({ text: Array.from({ length: 40 }, (_, i) => `w${i} `).join(""), chunks: 40, delayMs: 100 });
    await r.adapter.prompt(s.id, { parts: [{ type: "text", text: "long" }] });
    await until(() => textOf(replies(ch.state.messages).at(-1)).includes("w1"), "some text");
    await h.stop(r);
    const again = await started({}, store);
    const loaded = await again.adapter.loadSession(s.id);
    expect(loaded.session.status).toBe("idle");
    expect(replies(loaded.messages).at(-1)).toMatchObject({
      completedAt: expect.any(Number),
      error: { name: "Interrupted" },
    });
  });

  it("a long session's first load holds its newest page; older messages page in before it", async () => {
    const store = new SqliteStore(":memory:");
    const r = await started({}, store);
    const s = await r.adapter.createSession({});
    const messages: Message[] = Array.from({ length: 45 }, (_, i) => ({
      id: `m${String(i).padStart(2, "0")}`,
      sessionId: s.id,
      role: i % 2 ? "assistant" : "user",
      createdAt: 1_000 + i,
      blocks: [{ id: `b${i}`, kind: "text", text: `message ${i}` }],
    }));
    store.putTranscript({ backendId: "zot", sessionId: s.id, session: s, messages, updatedAt: Date.now() });
    const again = await started({}, store);
    const loaded = await again.adapter.loadSession(s.id);
    expect(loaded.messages.map((m) => m.id)).toEqual(messages.slice(5).map((m) => m.id));
    expect(loaded.olderCursor).toBe("m05");
    const older = await again.adapter.loadMessages(s.id, { before: loaded.olderCursor!, limit: 200 });
    expect(older.items.map((m) => m.id)).toEqual(["m00", "m01", "m02", "m03", "m04"]);
    expect(older.nextCursor).toBeUndefined();
  });

  it("a bounded context: only the newest messages that fit, and the notice says so", async () => {
    const store = new SqliteStore(":memory:");
    const r = await started({ contextMaxChars: 300 }, store);
    const s = await r.adapter.createSession({});
    for (const i of [1, 2, 3]) {
      h.model.enqueue({ text: `Answer ${i} ${"z".repeat(60)}` });
      await turn(r, s.id, `Question ${i} ${"q".repeat(60)}`);
    }
    r.adapter.killProcesses();
    await until(() => r.adapter.pidOf(s.id) === undefined, "the process to be gone");
    h.model.enqueue({ text: "Fine." });
    const next = await turn(r, s.id, "Go on");
    expect(noticesOf(next.reply).at(-1)).toMatch(/the newest \d of 6 messages\)\.$/);
    const sent = JSON.stringify(
      h.model.requests
        .at(-1)!
        .messages.filter((m) => m.role === "user")
        .map((m) => m.content),
    );
    expect(sent).toContain("Answer 3");
    expect(sent).not.toContain("Question 1");
  });

  it("a prompt with another model switches with set_model; another provider is a 400; files other than images are a 400", async () => {
    const r = await started();
    const s = await r.adapter.createSession({});
    h.model.enqueue({ text: "From model two." });
    const { ch } = await turn(r, s.id, "use the other model", { model: { provider: "openai", id: "fake-model-2" } });
    expect(h.model.requests.at(-1)!.model).toBe("fake-model-2");
    expect(ch.state.session!.model).toEqual({ provider: "openai", id: "fake-model-2" });
    await expect(
      r.adapter.prompt(s.id, { parts: [{ type: "text", text: "x" }], model: { provider: "anthropic", id: "claude" } }),
    ).rejects.toSatisfy((e: unknown) => isApiError(e) && e.status === 400);
    await expect(
      r.adapter.prompt(s.id, {
        parts: [{ type: "file", mime: "application/pdf", url: "data:application/pdf;base64,AAAA", filename: "a.pdf" }],
      }),
    ).rejects.toSatisfy((e: unknown) => isApiError(e) && e.status === 400);
    // an image goes to zot as an image
    h.model.enqueue({ text: "Nice picture." });
    await r.adapter.prompt(s.id, {
      parts: [
        { type: "text", text: "look" },
        { type: "file", mime: "image/png", url: "data:image/png;base64,iVBORw0KGgo=", filename: "p.png" },
      ],
    });
    await until(
      () => textOf(replies(ch.state.messages).at(-1)) === "Nice picture." && ch.state.session?.status === "idle",
      "the image turn",
    );
    const user = h.model.requests
      .at(-1)!
      .messages.filter((m) => m.role === "user")
      .at(-1)!;
    expect(JSON.stringify(user.content)).toContain("data:image/png;base64,iVBORw0KGgo=");
  });

  it("a prompt sent while busy waits for the running one", async () => {
    const r = await started();
    const s = await r.adapter.createSession({});
    const ch = await r.hub.open("zot", s.id);
    h.model.enqueue({ text: "first answer", chunks: 5, delayMs: 60 }, { text: "second answer" });
    await r.adapter.prompt(s.id, { parts: [{ type: "text", text: "one" }] });
    await r.adapter.prompt(s.id, { parts: [{ type: "text", text: "two" }] });
    await until(
      () =>
        replies(ch.state.messages).length === 2 &&
        ch.state.session?.status === "idle" &&
        replies(ch.state.messages)[1]!.completedAt,
      "both turns",
    );
    expect(replies(ch.state.messages).map(textOf)).toEqual(["first answer", "second answer"]);
    // one process, two runs: the session's totals are zot's cumulative ones, counted once
    const perRun = replies(ch.state.messages).reduce((n, m) => n + (m.usage?.inputTokens ?? 0), 0);
    expect(perRun).toBeGreaterThan(0);
    expect(ch.state.session!.usage!.inputTokens).toBe(perRun);
  });

  it("compacts: a summary message with either ending (done or not); nothing to compact without a process", async () => {
    for (const build of ["new", "old"]) {
      const r = await started({ env: { OPENAI_API_KEY: "sk-test", FAKE_ZOT_BUILD: build } });
      const s = await r.adapter.createSession({});
      await expect(r.adapter.compact(s.id)).rejects.toSatisfy((e: unknown) => isApiError(e) && e.status === 409);
      h.model.enqueue({ text: "Something worth summarising." });
      const { ch } = await turn(r, s.id, "say something");
      await r.adapter.compact(s.id);
      await until(
        () =>
          ch.state.session?.status === "idle" &&
          ch.state.messages.at(-1)?.summary &&
          ch.state.messages.at(-1)?.completedAt,
        `the ${build} build's compaction`,
      );
      const summary = ch.state.messages.at(-1)!;
      // The divider before the summary (a user-role message, as compactions show) says it is done.
      const divider = ch.state.messages.at(-2)!;
      expect(summary.parentId).toBe(divider.id);
      expect(divider.blocks).toEqual([
        expect.objectContaining({ kind: "notice", code: "compaction", text: expect.stringContaining("compacted") }),
      ]);
      expect(summary.blocks.some((b) => b.kind === "notice")).toBe(false);
      expect(textOf(summary)).toContain("Summary");
      // and the session takes prompts afterwards (a late `done` is not taken for the next turn's)
      h.model.enqueue({ text: `After the ${build} compaction.` });
      const after = await turn(r, s.id, "continue");
      expect(textOf(after.reply)).toBe(`After the ${build} compaction.`);
    }
  });

  it("an agent that ignores abort: the turn ends after the grace period and the wedged process goes", async () => {
    const r = await started({ env: { OPENAI_API_KEY: "sk-test", FAKE_ZOT_IGNORE_ABORT: "1" }, abortGraceMs: 300 });
    const s = await r.adapter.createSession({});
    const ch = await r.hub.open("zot", s.id);
    h.model.enqueue({ text: Array.from({ length: 40 }, (_, i) => `w${i} `).join(""), chunks: 40, delayMs: 100 });
    await r.adapter.prompt(s.id, { parts: [{ type: "text", text: "long" }] });
    await until(() => textOf(replies(ch.state.messages).at(-1)).includes("w2"), "some text");
    await r.adapter.abort(s.id);
    await until(() => ch.state.session?.status === "idle", "idle after the grace period", 5_000);
    expect(replies(ch.state.messages).at(-1)!.error).toMatchObject({ aborted: true });
    await until(() => r.adapter.pidOf(s.id) === undefined, "the process to be closed");
  });

  it("renames, lists, searches and deletes sessions the console keeps", async () => {
    const r = await started();
    const a = await r.adapter.createSession({ title: "alpha" });
    const b = await r.adapter.createSession({ title: "beta" });
    await r.adapter.renameSession(a.id, "alpha renamed");
    expect((await r.adapter.listSessions({ limit: 10, search: "renamed" })).items.map((x) => x.id)).toEqual([a.id]);
    await r.adapter.deleteSession(b.id);
    expect((await r.adapter.listSessions({ limit: 10 })).items.map((x) => x.id)).not.toContain(b.id);
    await expect(r.adapter.getSession(b.id)).rejects.toSatisfy((e: unknown) => isApiError(e) && e.status === 404);
  });

  it("a tool call with or without argument streaming (the document's plain tool_call, or tool_use_* first); a non-fatal error is a notice and the reply completes", async () => {
    for (const env of [{}, { FAKE_ZOT_STREAM_TOOL_ARGS: "1" }] as Record<string, string>[]) {
      const r = await started({ env: { OPENAI_API_KEY: "sk-test", ...env } });
      const s = await r.adapter.createSession({});
      h.model.enqueue(
        { toolCalls: [{ name: "bash", arguments: { command: "echo both-paths" } }] },
        { text: "Ran it, zot-nonfatal-error aside." },
      );
      const { reply } = await turn(r, s.id, "run it (zot-nonfatal-error)");
      const tool = reply.blocks.find((b): b is ToolBlock => b.kind === "tool")!;
      expect(tool).toMatchObject({ tool: "bash", status: "completed", input: { command: "echo both-paths" } });
      expect(textOf(reply)).toBe("Ran it, zot-nonfatal-error aside.");
      expect(reply.error).toBeUndefined();
      expect(reply.blocks.filter((b) => b.kind === "notice").map((b) => (b.kind === "notice" ? b.text : ""))).toEqual([
        "zot reported an error: provider rate limit: retrying the stream",
      ]);
    }
  });

  it("terva (zot's successor): a tool turn with its usage, a prompt its guard refuses shown with the reason, a model failure shown, and the next prompt works", async () => {
    const TERVA = path.resolve(import.meta.dirname, "../../../testkit/fake-zot-bin/terva");
    const r = await started({ command: [TERVA, ...zotCommand().slice(1)] });
    const s = await r.adapter.createSession({});
    h.model.enqueue({ toolCalls: [{ name: "bash", arguments: { command: "echo from-terva" } }] }, { text: "Ran it." });
    let { reply } = await turn(r, s.id, "run it");
    expect(reply.blocks.find((b): b is ToolBlock => b.kind === "tool")).toMatchObject({ status: "completed" });
    expect(textOf(reply)).toBe("Ran it.");
    expect(reply.usage?.inputTokens).toBeGreaterThan(0);
    expect(reply.error).toBeUndefined();

    ({ reply } = await turn(r, s.id, "please terva-reject-me now"));
    expect(reply.error?.message).toBe(
      "The agent refused the prompt (“please terva-reject-me now”): a BeforeUserMessage guard blocked this prompt",
    );

    h.model.enqueue({ error: { status: 500, message: "upstream exploded" } });
    ({ reply } = await turn(r, s.id, "fail please"));
    expect(reply.error?.message).toContain("upstream exploded");

    h.model.enqueue({ text: "Still here." });
    ({ reply } = await turn(r, s.id, "again"));
    expect(textOf(reply)).toBe("Still here.");
    expect(reply.error).toBeUndefined();
  });
});
