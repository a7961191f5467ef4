/**
 * A reply cut off by the OpenCode server's death ends with a visible error wherever the console's
 * reconnect lands in the server's restart. The real `opencode serve` is killed mid-reply (SIGKILL)
 * and started again; a gate proxy between the adapter and the server decides what the adapter's
 * reconnects meet, so each case is placed by the test, not by luck:
 * - before the restart: nothing listens (connections refused);
 * - during it: the port is bound but nothing answers (the server is not ready);
 * - after it: the reconnect sent during the outage reaches the restarted server;
 * - after it, then lost again while the first reconcile runs (the hub already shows the session
 *   idle when the second reconnect reconciles it);
 * - and a server that answers every stream later than the adapter's first-frame bound: the bound
 *   grows until the stream opens (a fixed bound would retry forever on a loaded machine).
 * Each case then sends the next prompt and checks that it is answered.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "@/lib/model";
import { until } from "@/testkit/until";
import { startGateProxy, type GateMode, type GateProxy } from "../../../testkit/gate-proxy";
import { createOpencodeHome, createWorkspace, type OpencodeHome } from "../../../testkit/opencode-env";
import { startOpencodeServer, type OpencodeServer } from "../../../testkit/opencode-server";
import { startScriptedModel, type ScriptedModel } from "../../../testkit/scripted-model";
import { Hub } from "../../hub/hub";
import { OpencodeAdapter } from "./adapter";

process.env.SWITCHBOARD_LOG ??= "silent";

const assistantText = (messages: Message[]) =>
  messages
    .filter((m) => m.role === "assistant")
    .flatMap((m) => m.blocks.map((b) => (b.kind === "text" ? b.text : "")))
    .join("");

describe("OpenCode killed mid-reply: the reconnect's timing does not decide whether the cut shows", {
  timeout: 120_000,
}, () => {
  let model: ScriptedModel;
  let home: OpencodeHome;
  let workspace: string;
  let server: OpencodeServer;
  let proxy: GateProxy;
  let adapter: OpencodeAdapter;
  let hub: Hub;
  /** The adapter's options, kept to change its first-frame bound per case. */
  const FIRST_FRAME_MS = 1_000;
  let options: ConstructorParameters<typeof OpencodeAdapter>[0];

  beforeAll(async () => {
    model = await startScriptedModel();
    home = await createOpencodeHome({ modelBaseUrl: model.url });
    workspace = await createWorkspace();
    server = await startOpencodeServer({ env: home.env, cwd: workspace });
    proxy = await startGateProxy(server.port);
    hub = new Hub(() => adapter);
    options = { id: "oc", label: "OpenCode", baseUrl: proxy.url, directory: workspace, firstFrameMs: FIRST_FRAME_MS };
    adapter = new OpencodeAdapter(options, hub);
    await adapter.start();
    await until(() => adapter.info().status === "ready", "the adapter to connect");
  }, 120_000);

  afterAll(async () => {
    hub?.stop();
    await adapter?.stop();
    await proxy?.close();
    await server?.stop();
    await model?.close();
    await home?.cleanup();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  }, 60_000);

  /** Starts a long reply, kills the server once it is streaming, with the gate in `outage` meanwhile. */
  async function cutReply(title: string, outage: GateMode) {
    model.reset();
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
    model.enqueue({ text: words.join(" "), chunks: 60, delayMs: 150 });
    const session = await adapter.createSession({ title });
    const channel = await hub.open("oc", session.id);
    await adapter.prompt(session.id, { parts: [{ type: "text", text: "a long reply, then a crash" }] });
    await until(() => assistantText(channel.state.messages).includes("w3"), "text before the crash");
    proxy.setMode(outage);
    const attempt = proxy.nextConnections(1);
    server.kill("SIGKILL");
    proxy.cutAll();
    await server.stop();
    // The adapter has tried to reconnect while the server was down.
    await attempt;
    return { channel, lastWord: words.at(-1)! };
  }

  async function restart() {
    server = await startOpencodeServer({ env: home.env, cwd: workspace, port: server.port });
    proxy.target = server.port;
  }

  async function expectCutShown({ channel, lastWord }: Awaited<ReturnType<typeof cutReply>>) {
    const last = () => channel.state.messages.filter((m) => m.role === "assistant").at(-1);
    await until(
      () => channel.state.session?.status === "idle" && last()?.error,
      "the cut reply to show an error",
      60_000,
    );
    expect(last()?.error).toMatchObject({ name: "TurnInterrupted", message: "OpenCode stopped during this reply" });
    expect(channel.state.lastError?.code).toBe("TurnInterrupted");
    expect(assistantText(channel.state.messages)).not.toContain(lastWord);
    // What was shown of the reply stays: the server's copy of a cut text part is empty.
    expect(assistantText(channel.state.messages)).toContain("w3");
    // The next prompt is answered, and clears the session's error.
    await until(() => adapter.info().status === "ready", "the backend to be ready");
    model.reset();
    model.enqueue({ text: "Alive after the crash." });
    await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: "still there?" }] });
    await until(
      () =>
        assistantText(channel.state.messages).includes("Alive after the crash.") &&
        channel.state.session?.status === "idle",
      "the next reply",
      60_000,
    );
    expect(channel.state.lastError).toBeUndefined();
    expect(last()?.error).toBeUndefined();
  }

  it("reconnects that land before the restart (refused) are retried, and the cut shows", async () => {
    const cut = await cutReply("cut: before restart", "refuse");
    await restart();
    proxy.setMode("pass");
    await expectCutShown(cut);
  });

  it("a reconnect that lands during the restart (port bound, no answer) is given up, and the cut shows", async () => {
    const cut = await cutReply("cut: during restart", "hold");
    await restart();
    // The held stream stays unanswered: the adapter must give up on it and try again.
    proxy.setMode("pass");
    await expectCutShown(cut);
  });

  it("a reconnect sent during the outage that reaches the restarted server shows the cut", async () => {
    // The queued reconnect must outlive the restart: no first-frame bound gives up on it meanwhile.
    options.firstFrameMs = 120_000;
    try {
      const cut = await cutReply("cut: after restart", "queue");
      await restart();
      proxy.setMode("pass");
      await expectCutShown(cut);
    } finally {
      options.firstFrameMs = FIRST_FRAME_MS;
    }
  });

  it("a second loss while the first reconcile runs still shows the cut", async () => {
    const cut = await cutReply("cut: lost twice", "refuse");
    await restart();
    proxy.setMode("pass");
    // The event stream and the reconcile's first request reach the server; then it is lost again.
    await proxy.nextConnections(2);
    proxy.cutAll();
    await expectCutShown(cut);
  });

  it("a reply the restarted server no longer holds (its process took it) still shows the cut", async () => {
    // OpenCode stores a reply as it streams, but a process killed mid-reply can take its unsaved end
    // with it, and on a loaded machine the whole reply: deleted here from OpenCode's own database
    // while the server is down, so the restarted server's history has no reply to mark.
    const cut = await cutReply("cut: reply lost", "refuse");
    const db = new Database(path.join(home.env.XDG_DATA_HOME!, "opencode", "opencode.db"));
    try {
      const ids = db
        .prepare("select id, data from message where session_id = ?")
        .all(cut.channel.sessionId)
        .filter((r) => (JSON.parse((r as { data: string }).data) as { role?: string }).role === "assistant")
        .map((r) => (r as { id: string }).id);
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) {
        db.prepare("delete from part where message_id = ?").run(id);
        db.prepare("delete from message where id = ?").run(id);
      }
    } finally {
      db.close();
    }
    await restart();
    proxy.setMode("pass");
    await expectCutShown(cut);
  });

  it("a server slower than the first-frame bound is given longer until the stream opens", async () => {
    await until(() => adapter.info().status === "ready", "the backend to be ready");
    proxy.slowMs = FIRST_FRAME_MS * 2.5;
    proxy.setMode("slow");
    const late = proxy.nextConnections(3);
    proxy.cutAll();
    // The first tries give up (bound 1 s, then 2 s); the third (3 s) outlasts the 2.5 s delay.
    await late;
    await until(() => adapter.info().status === "ready", "the stream to open through the slow gate", 60_000);
    proxy.setMode("pass");
    const session = await adapter.createSession({ title: "after a slow reconnect" });
    const channel = await hub.open("oc", session.id);
    model.reset();
    model.enqueue({ text: "Reached through a slow start." });
    await adapter.prompt(session.id, { parts: [{ type: "text", text: "there?" }] });
    await until(
      () => assistantText(channel.state.messages).includes("Reached through a slow start."),
      "the reply",
      60_000,
    );
  });
});
