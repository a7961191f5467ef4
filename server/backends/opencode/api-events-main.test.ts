/**
 * Upstream main's `/api/event` generation, frame by frame (the whole turn is in
 * ./api-generations.test.ts). Every frame is shaped as anomalyco/opencode's
 * packages/sdk/js/src/v2/gen/types.gen.ts at ac9ce83255790c38fd9ec2d943ead6180ee7f591 declares it:
 * `{id, created, type, durable?, location?, data}`, the time in `created`.
 */
import { describe, expect, it } from "vitest";
import type { TimelineEvent } from "@/lib/model";
import { ApiEventMapper, type ApiEventResult } from "./api-events";
import { formReply, toFormInterrupt } from "./api-forms";

const S = "ses_de8db46fbffeJ6yitaNihKmQ4n";
const A = "msg_21724c66b0001mxftEd1WxJn3P";
let n = 0;
const frame = (type: string, data: Record<string, unknown>, created = 1000) => ({
  id: `evt_${++n}`,
  created,
  type,
  data,
});
const main = () => {
  const m = new ApiEventMapper("b");
  m.setGeneration("2");
  return m;
};
const events = (r: ApiEventResult): TimelineEvent[] => (r.kind === "events" ? r.items.map((i) => i.event) : []);

describe("upstream main's /api/event frames", () => {
  it("are unknown to a mapper reading 1.18's, and 1.18's to one reading main's (never guessed)", () => {
    const old = new ApiEventMapper("b");
    expect(old.map(frame("session.execution.settled", { sessionID: S, outcome: "success" }))).toEqual({
      kind: "skip",
      reason: "unknown",
    });
    expect(
      main().map(
        frame("session.next.step.started", {
          timestamp: 1,
          sessionID: S,
          assistantMessageID: A,
          agent: "build",
          model: {},
        }),
      ),
    ).toEqual({ kind: "skip", reason: "unknown" });
  });

  it("a step that ends the turn leaves it running until session.execution.settled", () => {
    const m = main();
    m.map(
      frame("session.step.started", {
        sessionID: S,
        assistantMessageID: A,
        agent: "build",
        model: { id: "x", providerID: "p" },
      }),
    );
    const ended = events(
      m.map(
        frame(
          "session.step.ended",
          {
            sessionID: S,
            assistantMessageID: A,
            finish: "stop",
            cost: 0,
            tokens: { input: 1, output: 2, reasoning: 0, cache: { read: 0, write: 0 } },
          },
          2000,
        ),
      ),
    );
    expect(ended).toEqual([
      {
        type: "message.updated",
        message: expect.objectContaining({
          id: A,
          completedAt: 2000,
          usage: { inputTokens: 1, outputTokens: 2, costUsd: 0 },
        }),
      },
    ]);
    expect(events(m.map(frame("session.execution.settled", { sessionID: S, outcome: "success" })))).toEqual([
      { type: "session.status", status: "idle" },
    ]);
  });

  it("a failure shows once: from step.failed, or from the settled frame when no step told it", () => {
    const m = main();
    m.map(
      frame("session.step.started", {
        sessionID: S,
        assistantMessageID: A,
        agent: "build",
        model: { id: "x", providerID: "p" },
      }),
    );
    const failed = events(
      m.map(
        frame("session.step.failed", {
          sessionID: S,
          assistantMessageID: A,
          error: { type: "unknown", message: "boom" },
        }),
      ),
    );
    expect(failed.map((e) => e.type)).toEqual(["message.updated", "error"]);
    expect(events(m.map(frame("session.execution.settled", { sessionID: S, outcome: "failure" })))).toEqual([
      { type: "session.status", status: "idle" },
    ]);
    // No step told it: the settled frame's error is the turn's.
    m.map(
      frame("session.step.started", {
        sessionID: S,
        assistantMessageID: A,
        agent: "build",
        model: { id: "x", providerID: "p" },
      }),
    );
    const settled = events(
      m.map(
        frame(
          "session.execution.settled",
          { sessionID: S, outcome: "failure", error: { type: "unknown", message: "quota" } },
          3000,
        ),
      ),
    );
    expect(settled).toEqual([
      {
        type: "message.updated",
        message: expect.objectContaining({ id: A, completedAt: 3000, error: { name: "Error", message: "quota" } }),
      },
      { type: "error", message: "quota" },
      { type: "session.status", status: "idle" },
    ]);
  });

  it("an interrupted turn's open reply is marked stopped, without an error", () => {
    const m = main();
    m.map(
      frame("session.step.started", {
        sessionID: S,
        assistantMessageID: A,
        agent: "build",
        model: { id: "x", providerID: "p" },
      }),
    );
    expect(events(m.map(frame("session.execution.settled", { sessionID: S, outcome: "interrupted" }, 4000)))).toEqual([
      {
        type: "message.updated",
        message: expect.objectContaining({
          id: A,
          completedAt: 4000,
          error: expect.objectContaining({ aborted: true }),
        }),
      },
      { type: "session.status", status: "idle" },
    ]);
  });

  it("a prompt promoted without its admission seen (connected later) only says the session runs", () => {
    expect(events(main().map(frame("session.prompt.promoted", { sessionID: S, inputID: "msg_x1" })))).toEqual([
      { type: "session.status", status: "busy" },
    ]);
  });

  it("a compaction shows under a message of its own (main's frames name none)", () => {
    const m = main();
    const started = events(m.map(frame("session.compaction.started", { sessionID: S, reason: "manual" })));
    const id = started.flatMap((e) => (e.type === "message.updated" ? [e.message.id] : []))[0];
    expect(id).toMatch(/^msg_compaction_/);
    const ended = events(
      m.map(frame("session.compaction.ended", { sessionID: S, reason: "manual", text: "Summary", recent: "" })),
    );
    expect(ended).toContainEqual({
      type: "block.updated",
      messageId: id,
      block: { id: `${id}-summary`, kind: "text", text: "Summary" },
    });
    expect(ended.some((e) => e.type === "session.status")).toBe(false);
  });

  it("form.replied and form.cancelled resolve the form's interrupt", () => {
    const m = main();
    const asked = m.map(
      frame("form.created", {
        form: { id: "frm_9", sessionID: S, mode: "url", url: "https://example.com/login", title: "Sign in" },
      }),
    );
    expect(asked).toMatchObject({
      kind: "interrupt",
      interrupt: { id: "frm_9", kind: "input", title: "Sign in: https://example.com/login" },
    });
    expect(m.map(frame("form.cancelled", { id: "frm_9", sessionID: S }))).toEqual({
      kind: "resolved",
      sessionId: S,
      interruptId: "frm_9",
      outcome: "cancelled",
    });
    expect(m.map(frame("form.created", { form: { id: "frm_8", sessionID: "global", mode: "url", url: "x" } }))).toEqual(
      {
        kind: "skip",
        reason: "malformed",
      },
    );
  });
});

describe("upstream main's forms", () => {
  const form = {
    id: "frm_2",
    sessionID: S,
    title: "Deploy",
    mode: "form",
    fields: [
      { key: "env", type: "string", title: "Environment", options: [{ value: "prod", label: "Production" }] },
      { key: "replicas", type: "integer", title: "Replicas", required: true, minimum: 1, maximum: 9 },
      { key: "dry", type: "boolean", default: true },
      {
        key: "regions",
        type: "multiselect",
        options: [
          { value: "eu", label: "Europe" },
          { value: "us", label: "America" },
        ],
      },
    ],
  } as const;

  it("a form with other fields than choices is an input form, answered with the fields' values", () => {
    const it = toFormInterrupt(form, 1);
    expect(it).toMatchObject({
      kind: "input",
      title: "Deploy",
      input: {
        schema: {
          properties: {
            env: { type: "string", enum: ["prod"], enumNames: ["Production"] },
            replicas: { type: "integer", minimum: 1, maximum: 9 },
            dry: { type: "boolean", default: true },
            regions: { type: "string" },
          },
          required: ["replicas"],
        },
      },
    });
    expect(formReply(form, { action: "accept", values: { env: "prod", replicas: 3, regions: "Europe, us" } })).toEqual({
      answer: { env: "prod", replicas: 3, regions: ["eu", "us"] },
    });
    expect(formReply(form, { action: "decline" })).toBe("cancel");
    expect(() => formReply(form, { action: "accept", values: { replicas: 12 } })).toThrow(/replicas/);
  });

  it("a form of choices is a question per field; a dismissal cancels it", () => {
    const choices = {
      id: "frm_3",
      sessionID: S,
      mode: "form",
      fields: [
        {
          key: "regions",
          type: "multiselect",
          title: "Regions",
          options: [
            { value: "eu", label: "Europe" },
            { value: "us", label: "America" },
          ],
        },
      ],
    };
    expect(toFormInterrupt(choices, 1)).toMatchObject({
      kind: "question",
      questions: [{ header: "Regions", question: "Regions", multiple: true, custom: false }],
    });
    expect(formReply(choices, { answers: [["Europe", "America"]] })).toEqual({ answer: { regions: ["eu", "us"] } });
    expect(formReply(choices, { dismiss: true })).toBe("cancel");
    expect(() => formReply(choices, { answers: [["Asia"]] })).toThrow(/not an option/);
  });
});

describe("upstream main's prompt files", () => {
  it("a promoted prompt's files show by their source URI, or inline as a data URL", () => {
    const m = main();
    m.map(
      frame("session.prompt.admitted", {
        sessionID: S,
        inputID: "msg_f1",
        delivery: "queue",
        prompt: {
          text: "see",
          files: [
            { data: "aGk=", mime: "image/png", source: { type: "inline" }, name: "a.png" },
            { data: "", mime: "text/plain", source: { type: "uri", uri: "file:///w/b.txt" }, name: "b.txt" },
          ],
        },
      }),
    );
    const blocks = events(m.map(frame("session.prompt.promoted", { sessionID: S, inputID: "msg_f1" }))).flatMap((e) =>
      e.type === "block.updated" && e.block.kind === "file" ? [e.block] : [],
    );
    expect(blocks).toEqual([
      { id: "msg_f1-file-0", kind: "file", name: "a.png", mime: "image/png", url: "data:image/png;base64,aGk=" },
      { id: "msg_f1-file-1", kind: "file", name: "b.txt", mime: "text/plain", url: "file:///w/b.txt" },
    ]);
  });
});
