/**
 * The shared conformance suite (SPEC.md §3 rule 3, §10): one set of checks every backend adapter must
 * pass, run against its real instance (or its fake) with the scripted model. A target says how to start
 * its adapter and how to script its model; the suite drives the adapter through the real hub, exactly
 * as the HTTP routes do.
 *
 * Checks: create a session (read back, listed) · a prompt streams text and the turn ends idle · a tool
 * call appears with its output · abort ends the turn · history survives a reload (a new adapter, and
 * for stdio agents a new process) · permission interrupts round-trip where declared · a whole-session
 * fork holds the history and goes on by itself, where declared · an unknown session is a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Backend, Message, TimelineEvent, ToolBlock } from "@/lib/model";
import type { ScriptedTurn } from "../../e2e/fixtures/scripted-model";
import { isApiError } from "../errors";
import { Hub } from "../hub/hub";
import type { SessionChannel } from "../hub/session-channel";
import type { BackendAdapter, EventSink, LoadedSession } from "./types";
import { until } from "@/lib/testing/until";

export interface ConformanceTarget {
  /** Starts a new adapter instance on the same backing data (a new process for stdio agents). */
  open(sink: EventSink): Promise<BackendAdapter>;
  /** Queue scripted model turns (consumed in order by the backend's next model requests). */
  enqueue(...turns: ScriptedTurn[]): void;
  resetModel(): void;
  /** The target is configured so that bash asks for permission (required to check interrupts). */
  asksPermission: boolean;
  close(): Promise<void>;
}

/** Forwards to the hub and records every event, per session. */
class TeeSink implements EventSink {
  hub: Hub | undefined;
  events: { sessionId: string; event: TimelineEvent }[] = [];
  publish(backendId: string, sessionId: string, event: TimelineEvent) {
    this.events.push({ sessionId, event });
    this.hub?.publish(backendId, sessionId, event);
  }
  backendChanged(b: Backend) {
    this.hub?.backendChanged(b);
  }
  openSessions(backendId: string) {
    return this.hub?.openSessions(backendId) ?? [];
  }
  reconcile(backendId: string, sessionId: string, fresh: LoadedSession) {
    this.hub?.reconcile(backendId, sessionId, fresh);
  }
  sessionState(backendId: string, sessionId: string) {
    return this.hub?.sessionState(backendId, sessionId);
  }
  async openSession(backendId: string, sessionId: string) {
    await this.hub?.openSession(backendId, sessionId);
  }
}

const assistantText = (messages: Message[]) =>
  messages
    .filter((m) => m.role === "assistant")
    .map((m) => m.blocks.filter((b) => b.kind === "text").map((b) => (b.kind === "text" ? b.text : "")).join(""))
    .join("\n");
const userText = (messages: Message[]) =>
  messages
    .filter((m) => m.role === "user")
    .flatMap((m) => m.blocks.filter((b) => b.kind === "text").map((b) => (b.kind === "text" ? b.text : "")));
const toolBlocks = (messages: Message[]) => messages.flatMap((m) => m.blocks).filter((b): b is ToolBlock => b.kind === "tool");

/** Registers the suite for one target (call at the top level of a test file). */
export function conformanceSuite(name: string, setup: () => Promise<ConformanceTarget>, opts: { timeoutMs?: number } = {}) {
  describe(`conformance: ${name}`, { timeout: opts.timeoutMs ?? 60_000 }, () => {
    let target: ConformanceTarget;
    let adapter: BackendAdapter;
    let sink: TeeSink;
    let hub: Hub;

    async function openAdapter() {
      sink = new TeeSink();
      adapter = await target.open(sink);
      hub = new Hub((id) => (id === adapter.id ? adapter : undefined));
      sink.hub = hub;
    }

    beforeAll(async () => {
      target = await setup();
      await openAdapter();
    }, 120_000);

    afterAll(async () => {
      hub?.stop();
      await adapter?.stop();
      await target?.close();
    }, 60_000);

    /** Auto-approves permission requests while a turn runs (tools are not the point of every check). */
    function approveWhileRunning(channel: SessionChannel): () => void {
      let stop = false;
      const answered = new Set<string>();
      void (async () => {
        while (!stop) {
          for (const it of channel.state.interrupts) {
            if (answered.has(it.id) || it.kind !== "permission" || !adapter.answerInterrupt) continue;
            answered.add(it.id);
            await adapter.answerInterrupt(channel.sessionId, it.id, { decision: "allow_once" }).catch(() => undefined);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      return () => {
        stop = true;
      };
    }

    async function newSession(title: string) {
      const s = await adapter.createSession({ title });
      hub.publish(adapter.id, s.id, { type: "session.updated", session: s });
      return { session: s, channel: await hub.open(adapter.id, s.id) };
    }

    async function runTurn(channel: SessionChannel, prompt: string, ms = 45_000) {
      const from = sink.events.length;
      await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: prompt }] });
      await until(
        () => sink.events.slice(from).some((e) => e.sessionId === channel.sessionId && e.event.type === "session.status" && e.event.status !== "idle") && channel.state.session?.status === "idle",
        `the turn "${prompt}" to end`,
        ms,
      );
      return sink.events.slice(from).filter((e) => e.sessionId === channel.sessionId).map((e) => e.event);
    }

    it("creates a session it can read back, load and list", async () => {
      const { session } = await newSession("conformance create");
      expect(session.backendId).toBe(adapter.id);
      expect((await adapter.getSession(session.id)).id).toBe(session.id);
      expect((await adapter.loadSession(session.id)).session.id).toBe(session.id);
      const page = await adapter.listSessions({ limit: 200 });
      expect(page.items.map((s) => s.id)).toContain(session.id);
    });

    it("streams a reply and ends the turn idle", async () => {
      target.resetModel();
      const reply = "Conformance reply: " + Array.from({ length: 12 }, (_, i) => `w${i}`).join(" ") + ".";
      target.enqueue({ text: reply, chunks: 8, delayMs: 40 });
      const { channel } = await newSession("conformance stream");
      const events = await runTurn(channel, "say the conformance reply");
      expect(events.filter((e) => e.type === "block.delta" && e.field === "text").length).toBeGreaterThan(1);
      expect(userText(channel.state.messages)).toContain("say the conformance reply");
      expect(assistantText(channel.state.messages)).toContain(reply);
      expect(channel.state.session!.status).toBe("idle");
    });

    it("shows a tool call with its output", async () => {
      target.resetModel();
      target.enqueue({ toolCalls: [{ name: "bash", arguments: { command: "echo conformance-tool-output", description: "Print a marker" } }] }, { text: "The tool ran." });
      const { channel } = await newSession("conformance tool");
      const stop = approveWhileRunning(channel);
      try {
        await runTurn(channel, "run the marker command");
      } finally {
        stop();
      }
      const tool = toolBlocks(channel.state.messages).find((t) => t.tool === "bash");
      expect(tool).toBeDefined();
      expect(tool!.status).toBe("completed");
      expect(tool!.output ?? "").toContain("conformance-tool-output");
      expect(assistantText(channel.state.messages)).toContain("The tool ran.");
    });

    it("abort ends a running turn", async () => {
      target.resetModel();
      const chunks = Array.from({ length: 40 }, (_, i) => `slow${i} `);
      target.enqueue({ text: chunks.join(""), chunks: 40, delayMs: 200 });
      const { channel } = await newSession("conformance abort");
      await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: "go slowly" }] });
      await until(() => assistantText(channel.state.messages).includes("slow2"), "text before the abort");
      await adapter.abort!(channel.sessionId);
      await until(() => channel.state.session?.status === "idle", "idle after abort", 20_000);
      expect(assistantText(channel.state.messages)).not.toContain("slow39");
      // the stopped message says so (some backends report it just after going idle)
      await until(() => channel.state.messages.filter((m) => m.role === "assistant").at(-1)?.error?.aborted, "the turn to be marked stopped", 10_000);
    });

    it("keeps the history across a reload (a new adapter instance)", async () => {
      target.resetModel();
      target.enqueue({ text: "Remember this reply." });
      const { channel } = await newSession("conformance history");
      await runTurn(channel, "remember this prompt");
      const id = channel.sessionId;
      hub.stop();
      await adapter.stop();
      await openAdapter();
      const loaded = await adapter.loadSession(id);
      expect(userText(loaded.messages)).toContain("remember this prompt");
      expect(assistantText(loaded.messages)).toContain("Remember this reply.");
      // and the reloaded session takes the next prompt
      target.enqueue({ text: "Still here." });
      const ch = await hub.open(adapter.id, id);
      await runTurn(ch, "are you still there");
      expect(assistantText(ch.state.messages)).toContain("Still here.");
    });

    it("round-trips permission interrupts where declared (allow once, then reject)", async (ctx) => {
      if (!adapter.info().capabilities.interrupts.permission) ctx.skip(true, "no permission interrupts declared");
      if (!adapter.answerInterrupt) ctx.skip(true, "declared, but this adapter cannot answer interrupts yet");
      if (!target.asksPermission) ctx.skip(true, "the target is not configured to ask for permission");
      target.resetModel();
      const bash = (marker: string): ScriptedTurn => ({ toolCalls: [{ name: "bash", arguments: { command: `echo ${marker}`, description: `Print ${marker}` } }] });
      target.enqueue(bash("allowed-marker"), { text: "Allowed and done." });
      const { channel } = await newSession("conformance permission");
      await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: "run the allowed command" }] });
      let it = await until(() => channel.state.interrupts[0], "a permission request");
      expect(it.kind).toBe("permission");
      expect(it.permission!.options.map((o) => o.kind)).toEqual(expect.arrayContaining(["allow_once", "reject"]));
      expect(channel.state.session!.status).toBe("waiting");
      await adapter.answerInterrupt!(channel.sessionId, it.id, { decision: "allow_once" });
      await until(() => channel.state.interrupts.length === 0, "the interrupt to resolve");
      await until(() => channel.state.session?.status === "idle", "the allowed turn to end");
      expect(toolBlocks(channel.state.messages).at(-1)).toMatchObject({ status: "completed" });
      expect(toolBlocks(channel.state.messages).at(-1)!.output ?? "").toContain("allowed-marker");
      await expect(adapter.answerInterrupt!(channel.sessionId, it.id, { decision: "allow_once" })).rejects.toSatisfy((e: unknown) => isApiError(e) && (e.code === "conflict" || e.code === "not_found"));

      target.enqueue(bash("rejected-marker"), { text: "Fine, not running it." });
      await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: "run the rejected command" }] });
      it = await until(() => channel.state.interrupts[0], "a second permission request");
      await adapter.answerInterrupt!(channel.sessionId, it.id, { decision: "reject" });
      await until(() => channel.state.session?.status === "idle" && channel.state.interrupts.length === 0, "the rejected turn to end");
      const rejected = toolBlocks(channel.state.messages).at(-1)!;
      expect(["denied", "error", "cancelled"]).toContain(rejected.status);
      expect(rejected.output ?? "").not.toContain("rejected-marker\n");
    });

    it("forks a whole session where declared: the fork holds the history and goes on by itself", async (ctx) => {
      if (!adapter.info().capabilities.fork || !adapter.fork) ctx.skip(true, "no fork declared");
      target.resetModel();
      target.enqueue({ text: "Before the fork." });
      const { channel } = await newSession("conformance fork");
      await runTurn(channel, "say something to fork");
      const forked = await adapter.fork!(channel.sessionId);
      expect(forked.id).not.toBe(channel.sessionId);
      expect(forked.backendId).toBe(adapter.id);
      const loaded = await adapter.loadSession(forked.id);
      expect(userText(loaded.messages)).toEqual(["say something to fork"]);
      expect(assistantText(loaded.messages)).toContain("Before the fork.");
      expect((await adapter.listSessions({ limit: 200 })).items.map((s) => s.id)).toContain(forked.id);
      // The fork takes its own prompt; the original does not see it.
      target.enqueue({ text: "Only in the fork." });
      hub.publish(adapter.id, forked.id, { type: "session.updated", session: forked });
      const fch = await hub.open(adapter.id, forked.id);
      await runTurn(fch, "continue in the fork");
      expect(assistantText(fch.state.messages)).toContain("Only in the fork.");
      expect(userText(fch.state.messages)).toEqual(["say something to fork", "continue in the fork"]);
      expect(assistantText(channel.state.messages)).not.toContain("Only in the fork.");
      expect(userText((await adapter.loadSession(channel.sessionId)).messages)).toEqual(["say something to fork"]);
    });

    it("answers 404 for an unknown session", async () => {
      const unknown = "ses_0000000000000000000000conf";
      await expect(adapter.getSession(unknown)).rejects.toSatisfy((e: unknown) => isApiError(e) && e.code === "not_found");
      await expect(adapter.loadSession(unknown)).rejects.toSatisfy((e: unknown) => isApiError(e) && e.code === "not_found");
    });
  });
}
