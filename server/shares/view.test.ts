import { describe, expect, it } from "vitest";
import type { ShareStreamEvent } from "@/lib/api";
import type { Message, Session, TimelineEvent, ToolBlock, WireEvent } from "@/lib/model";
import { apply, type SessionState } from "@/lib/timeline/reducer";
import { Redactor } from "../redaction/redactor";
import {
  ShareEventFilter,
  ShareRenderer,
  holdBackTail,
  inScope,
  lineExcerpt,
  previewRedactions,
  type ShareScope,
} from "./view";

const KEY = "sk-proj-Ab3dEf6hIj9kLmN0pQr2StU5vWx8Yz1aBcD4eFg7HiJ";
const redactor = new Redactor();

const session: Session = {
  id: "ses_1",
  backendId: "local",
  title: "Deploy",
  directory: "/home/alice/secret-project",
  createdAt: 1,
  updatedAt: 2,
  status: "idle",
  statusDetail: "connect ECONNREFUSED 127.0.0.1:4096",
  usage: { inputTokens: 10, outputTokens: 5 },
};

const bash: ToolBlock = {
  id: "p_tool",
  kind: "tool",
  callId: "c1",
  tool: "bash",
  rawTool: "bash",
  status: "completed",
  input: { command: `echo OPENAI_API_KEY=${KEY}`, description: "print env" },
  output: `OPENAI_API_KEY=${KEY}\nDATABASE_URL=postgres://u:p@h/db\n`,
  exitCode: 0,
};

function msg(
  id: string,
  createdAt: number,
  role: Message["role"],
  blocks: Message["blocks"],
  extra: Partial<Message> = {},
): Message {
  return { id, sessionId: "ses_1", role, createdAt, blocks, ...extra };
}

function baseState(): SessionState {
  return {
    session,
    messages: [
      msg("m1", 10, "user", [{ id: "p1", kind: "text", text: "print the env" }]),
      msg("m2", 20, "assistant", [bash, { id: "p2", kind: "text", text: "Here it is." }], { completedAt: 25 }),
      msg("m3", 30, "user", [{ id: "p3", kind: "text", text: "now deploy" }]),
      msg("m4", 40, "assistant", [{ id: "p4", kind: "text", text: "Deploying." }], { completedAt: 45 }),
    ],
    interrupts: [{ id: "i1", sessionId: "ses_1", kind: "permission", createdAt: 5, title: "rm -rf /" }],
    todos: [{ content: "secret plan", status: "pending" }],
    lastError: { message: "upstream at http://10.0.0.5:4096 failed" },
  };
}

const meta = { live: true, includeToolOutput: true, createdAt: 1, expiresAt: null };
const renderer = (scope: Partial<ShareScope> = {}) =>
  new ShareRenderer({ includeToolOutput: true, ...scope }, () => redactor);

describe("scope", () => {
  it("orders like the reducer: (createdAt, id), inclusive", () => {
    const s: ShareScope = { includeToolOutput: true, upToMessageId: "m2", upToCreatedAt: 20 };
    expect(inScope(s, { id: "m1", createdAt: 10 })).toBe(true);
    expect(inScope(s, { id: "m2", createdAt: 20 })).toBe(true);
    expect(inScope(s, { id: "m1x", createdAt: 20 })).toBe(true);
    expect(inScope(s, { id: "m3", createdAt: 20 })).toBe(false);
    expect(inScope(s, { id: "m0", createdAt: 21 })).toBe(false);
    expect(inScope({ includeToolOutput: true }, { id: "z", createdAt: 1e15 })).toBe(true);
  });

  it("holds back the unfinished last word", () => {
    expect(holdBackTail("hello wor")).toBe("hello ");
    expect(holdBackTail("hello world ")).toBe("hello world ");
    expect(holdBackTail("KEY=sk-proj-abc")).toBe("");
    expect(holdBackTail("line\nsk-ant-")).toBe("line\n");
    expect(holdBackTail("")).toBe("");
  });
});

describe("snapshot", () => {
  it("redacts, and leaves out backend details, interrupts, todos and console errors", () => {
    const snap = renderer().snapshot(baseState(), 99, false, meta);
    const json = JSON.stringify(snap);
    expect(json).not.toContain(KEY);
    expect(json).not.toContain("postgres://u:p@");
    expect(json).toContain("[REDACTED:openai-key]");
    expect(json).toContain("DATABASE_URL=[REDACTED:connection-string]");
    for (const leak of ["secret-project", "ECONNREFUSED", "10.0.0.5", "rm -rf /", "secret plan", '"local"'])
      expect(json).not.toContain(leak);
    expect(snap.session.backendId).toBe("share");
    expect(snap.session.directory).toBeUndefined();
    expect(snap.messages).toHaveLength(4);
    expect(snap.seq).toBe(99);
  });

  it("does not change the console's own state", () => {
    const state = baseState();
    renderer().snapshot(state, 1, false, meta);
    expect((state.messages[1]!.blocks[0] as ToolBlock).output).toContain(KEY);
  });

  it("up to a message: later messages and whole-session usage are not shown", () => {
    const snap = renderer({ upToMessageId: "m2", upToCreatedAt: 20 }).snapshot(baseState(), 1, false, meta);
    expect(snap.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    expect(snap.session.usage).toBeUndefined();
  });

  it("without tool outputs: no output, error, diff or file contents, but the call itself", () => {
    const state = baseState();
    const write: ToolBlock = {
      ...bash,
      id: "p_w",
      callId: "c2",
      tool: "write",
      rawTool: "write",
      input: { filePath: "/x/.env", content: "SECRET=1" },
      output: "wrote",
      diff: [{ path: "/x/.env", status: "added", additions: 1, deletions: 0, patch: "+SECRET=1" }],
    };
    state.messages[1] = { ...state.messages[1]!, blocks: [...state.messages[1]!.blocks, write] };
    const snap = renderer({ includeToolOutput: false }).snapshot(state, 1, false, {
      ...meta,
      includeToolOutput: false,
    });
    const tools = snap.messages[1]!.blocks.filter((b): b is ToolBlock => b.kind === "tool");
    expect(tools[0]!.output).toBeUndefined();
    expect(tools[0]!.input.command).toBe("echo OPENAI_API_KEY=[REDACTED:openai-key]");
    expect(tools[0]!.exitCode).toBe(0);
    expect(tools[1]!.input).toEqual({ filePath: "/x/.env" });
    expect(tools[1]!.diff).toBeUndefined();
  });

  it("only image data URLs and http(s) links survive in file blocks", () => {
    const state = baseState();
    state.messages[0] = msg("m1", 10, "user", [
      { id: "f1", kind: "file", name: "shot.png", mime: "image/png", url: "data:image/png;base64,AAAA" },
      { id: "f2", kind: "file", name: ".env", mime: "text/plain", url: "data:text/plain;base64,U0VDUkVUPTE=" },
      { id: "f3", kind: "file", name: "a.txt", mime: "text/plain", url: "file:///home/alice/a.txt" },
      { id: "f4", kind: "file", name: "doc", mime: "text/html", url: "https://bob:pw@example.com/doc" },
    ]);
    const files = renderer()
      .snapshot(state, 1, false, meta)
      .messages[0]!.blocks.map((b) => (b.kind === "file" ? b.url : ""));
    expect(files).toEqual([
      "data:image/png;base64,AAAA",
      "",
      "",
      "https://bob:[REDACTED:url-credentials]@example.com/doc",
    ]);
  });

  it("a growing reply shows no half-typed word", () => {
    const state = baseState();
    state.session = { ...session, status: "busy" };
    state.messages.push(
      msg("m5", 50, "assistant", [{ id: "p5", kind: "text", text: `The key is ${KEY.slice(0, 12)}` }]),
    );
    const snap = renderer().snapshot(state, 1, false, meta);
    const last = snap.messages[4]!.blocks[0]!;
    expect(last.kind === "text" && last.text).toBe("The key is ");
  });

  it("re-redacts a stored snapshot with patterns added later", () => {
    const snap = renderer().snapshot(baseState(), 1, false, meta);
    const custom = new Redactor([{ id: "x", label: "codename", pattern: "Deploying", regex: false }]);
    const again = new ShareRenderer({ includeToolOutput: true }, () => custom).reRedact(snap);
    expect(JSON.stringify(again)).toContain("[REDACTED:codename]");
    expect(JSON.stringify(again)).toContain("[REDACTED:openai-key]");
  });
});

describe("preview", () => {
  it("counts what redaction removes, by kind, with examples showing the marker", () => {
    const p = previewRedactions(renderer(), baseState());
    expect(p.messages).toBe(4);
    expect(p.toolCalls).toBe(1);
    // The key is in the command and in its output: one secret, two places.
    expect(p.summary.byKind).toEqual({ "openai-key": 1, "connection-string": 1 });
    expect(p.summary.total).toBe(2);
    expect(p.summary.occurrences).toBe(3);
    expect(p.summary.examples).toEqual([
      { kind: "openai-key", where: "bash command", excerpt: "echo OPENAI_API_KEY=[REDACTED:openai-key]" },
      { kind: "connection-string", where: "bash output", excerpt: "DATABASE_URL=[REDACTED:connection-string]" },
    ]);
  });

  it("excerpts are the marker's line, windowed when long", () => {
    const text = `first\n${"x".repeat(100)} TOKEN=[REDACTED:secret] ${"y".repeat(100)}\nlast`;
    const at = text.indexOf("[REDACTED");
    const ex = lineExcerpt(text, at, "[REDACTED:secret]".length);
    expect(ex).toMatch(/^…x+ TOKEN=\[REDACTED:secret\] y+…$/);
    expect(ex.length).toBeLessThan(100);
    expect(lineExcerpt("a\nKEY=[REDACTED:secret]\nb", 6, 17)).toBe("KEY=[REDACTED:secret]");
  });

  it("counts hidden tool outputs", () => {
    const p = previewRedactions(renderer({ includeToolOutput: false }), baseState());
    expect(p.hiddenToolOutputs).toBe(1);
    expect(p.summary.byKind).toEqual({ "openai-key": 1 });
  });
});

/* --------------------------------------------------------------------------- event filter */

/** A channel stand-in: applies events to the state, then hands them to the filter (as the hub does). */
function harness(scope: Partial<ShareScope> = {}, initial: SessionState = baseState()) {
  let state = initial;
  let seq = 100;
  const filter = new ShareEventFilter(renderer(scope), () => state);
  const sent: ShareStreamEvent[] = [];
  const push = (e: TimelineEvent) => {
    state = apply(state, e);
    sent.push(...filter.push({ ...e, seq: ++seq } as WireEvent));
  };
  const flush = () => sent.push(...filter.flush());
  return {
    push,
    flush,
    sent,
    get state() {
      return state;
    },
  };
}

const delta = (messageId: string, blockId: string, d: string, field: "text" | "output" = "text"): TimelineEvent => ({
  type: "block.delta",
  messageId,
  blockId,
  field,
  delta: d,
});

describe("share stream", () => {
  it("never sends a key split across deltas, not even a prefix of it", () => {
    const h = harness({}, { ...baseState(), session: { ...session, status: "busy" } });
    h.push({ type: "message.updated", message: { id: "m5", sessionId: "ses_1", role: "assistant", createdAt: 50 } });
    h.push({ type: "block.updated", messageId: "m5", block: { id: "p5", kind: "text", text: "" } });
    const pieces = ["Use OPENAI", "_API_KEY=sk-pr", "oj-Ab3dEf6hIj9kLmN0", "pQr2StU5vWx8Yz1aBcD4eFg7HiJ", " now."];
    for (const p of pieces) {
      h.push(delta("m5", "p5", p));
      h.flush();
    }
    const wire = JSON.stringify(h.sent);
    expect(wire).not.toContain("sk-pr");
    expect(wire).not.toContain("Ab3dEf6h");
    expect(h.sent.some((e) => e.type === "block.delta")).toBe(false);
    const last = h.sent.filter((e) => e.type === "block.updated").at(-1);
    expect(last?.type === "block.updated" && last.block.kind === "text" && last.block.text).toBe(
      "Use OPENAI_API_KEY=[REDACTED:openai-key] ",
    );
    // The turn ends: the whole text, tail included, goes out.
    h.push({
      type: "message.updated",
      message: { id: "m5", sessionId: "ses_1", role: "assistant", createdAt: 50, completedAt: 60 },
    });
    const final = h.sent.filter((e) => e.type === "block.updated").at(-1);
    expect(final?.type === "block.updated" && final.block.kind === "text" && final.block.text).toBe(
      "Use OPENAI_API_KEY=[REDACTED:openai-key] now.",
    );
  });

  it("coalesces deltas and keeps seqs growing on the wire", () => {
    const h = harness({}, { ...baseState(), session: { ...session, status: "busy" } });
    h.push({ type: "message.updated", message: { id: "m5", sessionId: "ses_1", role: "assistant", createdAt: 50 } });
    h.push({ type: "block.updated", messageId: "m5", block: { id: "p5", kind: "text", text: "" } });
    for (const w of ["one ", "two ", "three "]) h.push(delta("m5", "p5", w));
    const before = h.sent.length;
    h.push({ type: "usage.updated", usage: { inputTokens: 1, outputTokens: 2 } });
    const added = h.sent.slice(before);
    // One coalesced update for three deltas, sent before the next event.
    expect(added.map((e) => e.type)).toEqual(["block.updated", "usage.updated"]);
    const seqs = h.sent.map((e) => ("seq" in e ? e.seq : 0));
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });

  it("streams tool output redacted as a whole", () => {
    const h = harness({}, { ...baseState(), session: { ...session, status: "busy" } });
    h.push({ type: "message.updated", message: { id: "m5", sessionId: "ses_1", role: "assistant", createdAt: 50 } });
    h.push({ type: "block.updated", messageId: "m5", block: { ...bash, id: "p6", status: "running", output: "" } });
    h.push(delta("m5", "p6", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7", "output"));
    h.flush();
    h.push(delta("m5", "p6", "SZiAMfQ\n-----END RSA PRIVATE KEY-----\nok\n", "output"));
    h.flush();
    const wire = JSON.stringify(h.sent);
    expect(wire).not.toContain("MIIEpAIBAAKCAQEA");
    expect(wire).toContain("[REDACTED:private-key]");
  });

  it("sends nothing after the shared message, and no interrupts, todos or errors", () => {
    const h = harness({ upToMessageId: "m2", upToCreatedAt: 20 });
    h.push({ type: "message.updated", message: { id: "m9", sessionId: "ses_1", role: "assistant", createdAt: 90 } });
    h.push({ type: "block.updated", messageId: "m9", block: { id: "p9", kind: "text", text: "later" } });
    h.push(delta("m9", "p9", " more"));
    h.push({ type: "block.updated", messageId: "m4", block: { id: "p4", kind: "text", text: "Deploying. Done." } });
    h.push({
      type: "interrupt.requested",
      interrupt: { id: "i2", sessionId: "ses_1", kind: "permission", createdAt: 1, title: "x" },
    });
    h.push({ type: "todo.updated", todos: [] });
    h.push({ type: "error", message: "backend at 10.0.0.5 down" });
    h.push({ type: "usage.updated", usage: { inputTokens: 1, outputTokens: 1 } });
    h.push({ type: "message.removed", messageId: "m9" });
    h.flush();
    expect(h.sent).toEqual([]);
    h.push({ type: "message.removed", messageId: "m1" });
    expect(h.sent.map((e) => e.type)).toEqual(["message.removed"]);
    h.sent.length = 0;
    h.push({ type: "block.updated", messageId: "m2", block: { id: "p2", kind: "text", text: "Here it is, again." } });
    expect(h.sent.map((e) => e.type)).toEqual(["block.updated"]);
  });

  it("sanitizes session updates and status", () => {
    const h = harness();
    h.push({ type: "session.updated", session: { ...session, title: `key ${KEY}` } });
    h.push({ type: "session.status", status: "retry", detail: "provider at 10.0.0.5 said 429" });
    const wire = JSON.stringify(h.sent);
    expect(wire).not.toContain("10.0.0.5");
    expect(wire).not.toContain("secret-project");
    expect(wire).not.toContain(KEY);
    expect(h.sent.map((e) => e.type)).toEqual(["session.updated", "session.status"]);
  });
});
