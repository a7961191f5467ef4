/**
 * The conformance suite every backend adapter passes (docs/architecture.md, "Conformance"), run
 * against its real instance or its protocol-faithful fake with the scripted model, through the real
 * hub. A target (./conformance-harness.ts) says how to start its adapter and script its model (the
 * real ones are in ./conformance-targets.ts); each has one `conformanceSuite(...)` call in a
 * ./conformance-*.test.ts file. The Stop checks are in ./conformance-stop.ts, the capability gate in
 * ./conformance-capabilities.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message, TimelineEvent } from "@/lib/model";
import type { ScriptedTurn } from "../../testkit/scripted-model";
import { capability } from "../capability";
import { isApiError } from "../errors";
import { Hub } from "../hub/hub";
import type { SessionChannel } from "../hub/session-channel";
import { assistantText, type ConformanceTarget, shellCall, TeeSink, toolBlocks, userText } from "./conformance-harness";
import { capabilityChecks } from "./conformance-capabilities";
import { stopChecks } from "./conformance-stop";
import type { BackendAdapter } from "./types";
import { until } from "@/testkit/until";

/** Registers the suite for one target (call at the top level of a test file). */
export function conformanceSuite(
  name: string,
  setup: () => Promise<ConformanceTarget>,
  opts: { timeoutMs?: number } = {},
) {
  describe(`conformance: ${name}`, { timeout: opts.timeoutMs ?? 60_000 }, () => {
    let target: ConformanceTarget;
    let adapter: BackendAdapter;
    let sink: TeeSink;
    let hub: Hub;

    /** Every event that failed the canonical schema, across adapter instances. */
    const invalid: TeeSink["invalid"] = [];

    async function openAdapter() {
      sink = new TeeSink();
      sink.invalid = invalid;
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
        () =>
          sink.events
            .slice(from)
            .some(
              (e) =>
                e.sessionId === channel.sessionId && e.event.type === "session.status" && e.event.status !== "idle",
            ) && channel.state.session?.status === "idle",
        `the turn "${prompt}" to end`,
        ms,
      );
      return sink.events
        .slice(from)
        .filter((e) => e.sessionId === channel.sessionId)
        .map((e) => e.event);
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
      const reply = `Conformance reply: ${Array.from({ length: 12 }, (_, i) => `w${i}`).join(" ")}.`;
      target.enqueue({ text: reply, chunks: 8, delayMs: 40 });
      const { channel } = await newSession("conformance stream");
      const events = await runTurn(channel, "say the conformance reply");
      expect(events.filter((e) => e.type === "block.delta" && e.field === "text").length).toBeGreaterThan(1);
      expect(userText(channel.state.messages)).toContain("say the conformance reply");
      expect(assistantText(channel.state.messages)).toContain(reply);
      expect(channel.state.session!.status).toBe("idle");
    });

    it("shows a tool call with its output", async (ctx) => {
      if (target.toolCalls === false) ctx.skip(true, "the protocol has no tool calls");
      target.resetModel();
      target.enqueue(
        {
          toolCalls: [shellCall(target, "echo conformance-tool-output", "Print a marker")],
        },
        { text: "The tool ran." },
      );
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
      await until(
        () => channel.state.messages.filter((m) => m.role === "assistant").at(-1)?.error?.aborted,
        "the turn to be marked stopped",
        10_000,
      );
    });

    const host = { adapter: () => adapter, target: () => target, newSession, runTurn };
    stopChecks(host);

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
      const bash = (marker: string): ScriptedTurn => ({
        toolCalls: [shellCall(target, `echo ${marker}`, `Print ${marker}`)],
      });
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
      await expect(adapter.answerInterrupt!(channel.sessionId, it.id, { decision: "allow_once" })).rejects.toSatisfy(
        (e: unknown) => isApiError(e) && (e.code === "conflict" || e.code === "not_found"),
      );

      target.enqueue(bash("rejected-marker"), { text: "Fine, not running it." });
      await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: "run the rejected command" }] });
      it = await until(() => channel.state.interrupts[0], "a second permission request");
      await adapter.answerInterrupt!(channel.sessionId, it.id, { decision: "reject" });
      await until(
        () => channel.state.session?.status === "idle" && channel.state.interrupts.length === 0,
        "the rejected turn to end",
      );
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

    it("renames a session: the title is read back, listed and published", async () => {
      const { channel } = await newSession("conformance rename");
      if (!adapter.info().capabilities.rename || !adapter.renameSession) {
        expect(() => capability(adapter, "rename", adapter.renameSession)).toThrow();
        return;
      }
      const renamed = await capability(
        adapter,
        "rename",
        adapter.renameSession,
      )(channel.sessionId, "conformance renamed");
      expect(renamed.title).toBe("conformance renamed");
      expect((await adapter.getSession(channel.sessionId)).title).toBe("conformance renamed");
      await until(() => channel.state.session?.title === "conformance renamed", "the rename to reach the hub");
      const listed = (await adapter.listSessions({ limit: 200, search: "conformance renamed" })).items.find(
        (s) => s.id === channel.sessionId,
      );
      expect(listed?.title).toBe("conformance renamed");
    });

    it("pages through the history where declared: every message once, in order", async (ctx) => {
      if (!adapter.info().capabilities.history) {
        expect(() => capability(adapter, "history", adapter.loadMessages)).toThrow();
        ctx.skip(true, "no history paging declared");
      }
      target.resetModel();
      target.enqueue({ text: "First answer." }, { text: "Second answer." }, { text: "Third answer." });
      const { channel } = await newSession("conformance paging");
      for (const p of ["first question", "second question", "third question"]) await runTurn(channel, p);
      const load = capability(adapter, "history", adapter.loadMessages);
      const pages: Message[][] = [];
      let before: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await load(channel.sessionId, { limit: 2, ...(before ? { before } : {}) });
        expect(page.items.length).toBeLessThanOrEqual(2);
        pages.unshift(page.items);
        if (!page.nextCursor) break;
        before = page.nextCursor;
      }
      const all = pages.flat();
      expect(pages.length).toBeGreaterThanOrEqual(3);
      expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
      expect(all.map((m) => m.id)).toEqual(channel.state.messages.map((m) => m.id));
      expect(userText(all)).toEqual(["first question", "second question", "third question"]);
    });

    capabilityChecks(host);

    it("loses nothing when a subscriber reconnects from a seq", async () => {
      target.resetModel();
      const words = Array.from({ length: 24 }, (_, i) => `r${i}`);
      target.enqueue({ text: words.join(" "), chunks: 24, delayMs: 30 });
      const { channel } = await newSession("conformance reconnect");
      const start = channel.seq;
      const startState = channel.state;
      const frames: { seq: number; event: TimelineEvent }[] = [];
      const subscriber = (into: typeof frames) => ({
        write(frame: Uint8Array) {
          const data = /^data: (.*)$/m.exec(new TextDecoder().decode(frame))?.[1];
          if (data) {
            const e = JSON.parse(data) as TimelineEvent & { seq: number };
            into.push({ seq: e.seq, event: e });
          }
          return true;
        },
        close() {},
        closed: false,
      });
      const first: typeof frames = [];
      let off = channel.subscribe(subscriber(first), start);
      await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: "reconnect while streaming" }] });
      await until(() => first.length >= 4, "a few events before the disconnect");
      off();
      const lastSeen = first.at(-1)!.seq;
      await until(
        () => channel.state.session?.status === "idle" && assistantText(channel.state.messages).includes(words.at(-1)!),
        "the turn to end while disconnected",
        45_000,
      );
      const second: typeof frames = [];
      off = channel.subscribe(subscriber(second), lastSeen);
      off();
      frames.push(...first, ...second);
      // Contiguous seqs from the start to now, none twice, no reset.
      expect(frames.map((f) => f.seq)).toEqual(Array.from({ length: channel.seq - start }, (_, i) => start + 1 + i));
      expect(frames.some((f) => f.event.type === "stream.reset")).toBe(false);
      // And applying them to the state at the start gives the hub's state.
      const { applyAll } = await import("@/lib/timeline/reducer");
      const rebuilt = applyAll(
        startState,
        frames.map((f) => f.event),
      );
      expect(rebuilt.messages).toEqual(channel.state.messages);
    });

    it("round-trips a question interrupt where declared", async (ctx) => {
      if (!adapter.info().capabilities.interrupts.question) ctx.skip(true, "no question interrupts declared");
      if (!target.questionTurn || !adapter.answerInterrupt)
        ctx.skip(true, "declared, but the target cannot make its model ask");
      target.resetModel();
      target.enqueue(target.questionTurn!({ question: "Which conformance color?", options: ["red", "blue"] }), {
        text: "Blue it is, conformantly.",
      });
      const { channel } = await newSession("conformance question");
      await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: "ask me a color" }] });
      const it = await until(() => channel.state.interrupts.find((i) => i.kind === "question"), "a question");
      expect(it.questions?.[0]?.question).toBe("Which conformance color?");
      expect(channel.state.session!.status).toBe("waiting");
      // An answer that does not fit is a 400, not a crash.
      await expect(adapter.answerInterrupt!(channel.sessionId, it.id, { answers: [] })).rejects.toSatisfy(
        (e: unknown) => isApiError(e) && e.status === 400,
      );
      await adapter.answerInterrupt!(channel.sessionId, it.id, { answers: [["blue"]] });
      await until(
        () => channel.state.session?.status === "idle" && channel.state.interrupts.length === 0,
        "the answered turn to end",
      );
      expect(assistantText(channel.state.messages)).toContain("Blue it is, conformantly.");
    });

    // A restart of the backend plus two turns: each step has its own 60 s wait, so the test as a
    // whole may take longer than the default timeout on a loaded 2-core machine.
    it("ends a turn with a visible error when the backend's process is killed mid-turn, and takes the next prompt", async () => {
      target.resetModel();
      const words = Array.from({ length: 60 }, (_, i) => `x${i}`);
      target.enqueue({ text: words.join(" "), chunks: 60, delayMs: 150 });
      const { channel } = await newSession("conformance crash");
      await adapter.prompt(channel.sessionId, { parts: [{ type: "text", text: "a long reply, then a crash" }] });
      await until(() => assistantText(channel.state.messages).includes("x3"), "text before the crash", 60_000);
      await target.killBackend(adapter);
      // The turn ends, and says why: an error on the session or on its last reply.
      const crashed = () =>
        channel.state.lastError ?? channel.state.messages.filter((m) => m.role === "assistant").at(-1)?.error;
      await until(
        () => channel.state.session?.status === "idle" && crashed(),
        "the turn to end with a visible error",
        60_000,
      ).catch((err: unknown) => {
        // What the console showed instead, for the failure message.
        const last = channel.state.messages.at(-1);
        const seen = {
          status: channel.state.session?.status,
          backend: adapter.info().status,
          messages: channel.state.messages.length,
          last: last && { id: last.id, role: last.role, completedAt: last.completedAt, error: last.error },
          text: assistantText(channel.state.messages).slice(-40),
        };
        throw new Error(
          `${err instanceof Error ? err.message : String(err)}; the console showed ${JSON.stringify(seen)}`,
        );
      });
      expect(assistantText(channel.state.messages)).not.toContain(words.at(-1));
      await until(() => adapter.info().status === "ready", "the backend to be back", 60_000);
      target.resetModel();
      target.enqueue({ text: "Alive after the crash." });
      await runTurn(channel, "still there?", 60_000);
      expect(assistantText(channel.state.messages)).toContain("Alive after the crash.");
      expect(channel.state.lastError).toBeUndefined();
    }, 180_000);

    it("answers 404 for an unknown session", async () => {
      const unknown = "ses_0000000000000000000000conf";
      await expect(adapter.getSession(unknown)).rejects.toSatisfy(
        (e: unknown) => isApiError(e) && e.code === "not_found",
      );
      await expect(adapter.loadSession(unknown)).rejects.toSatisfy(
        (e: unknown) => isApiError(e) && e.code === "not_found",
      );
    });

    it("emitted only events that pass the canonical schema", () => {
      expect(sink.events.length).toBeGreaterThan(0);
      expect(invalid.map((x) => `${JSON.stringify(x.event).slice(0, 200)}: ${x.issues}`)).toEqual([]);
    });
  });
}

export type { ConformanceTarget };
