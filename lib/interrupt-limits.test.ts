import { describe, expect, it } from "vitest";
import { INTERRUPT_LIMITS, interruptLimitError, refusedInterruptNotice } from "./interrupt-limits";
import type { Interrupt } from "./model";

const form = (properties: Record<string, unknown>): Interrupt =>
  ({
    id: "form_1",
    sessionId: "s",
    kind: "input",
    createdAt: 1,
    title: "Form",
    input: { prompt: "Fill it in", schema: { type: "object", properties } },
  }) as Interrupt;

describe("interrupt bounds", () => {
  it("takes an ordinary form, question and permission", () => {
    expect(
      interruptLimitError(
        form({ name: { type: "string", title: "Name" }, license: { type: "string", enum: ["MIT", "GPL"] } }),
      ),
    ).toBeUndefined();
    const q: Interrupt = {
      id: "q",
      sessionId: "s",
      kind: "question",
      createdAt: 1,
      title: "Q",
      questions: [{ question: "Which?", options: [{ label: "a" }, { label: "b" }] }],
    };
    expect(interruptLimitError(q)).toBeUndefined();
    const big = "x".repeat(2_000_000);
    const p: Interrupt = {
      id: "p",
      sessionId: "s",
      kind: "permission",
      createdAt: 1,
      title: "Edit",
      permission: {
        action: "edit",
        patterns: ["a.txt"],
        options: [{ id: "y", label: "Allow", kind: "allow_once" }],
        diff: big,
      },
    };
    expect(interruptLimitError(p)).toBeUndefined(); // a file diff is the agent's own output
  });

  it("refuses a 5 MB form schema, too many fields, options or characters", () => {
    expect(interruptLimitError(form({ blob: { type: "string", description: "x".repeat(5 * 1024 * 1024) } }))).toMatch(
      /the request is 5,1\d\d kB; the console takes at most 256 kB/,
    );
    const many = Object.fromEntries(
      Array.from({ length: INTERRUPT_LIMITS.maxFields + 1 }, (_, i) => [`f${i}`, { type: "boolean" }]),
    );
    expect(interruptLimitError(form(many))).toMatch(/51 fields/);
    expect(
      interruptLimitError(form({ pick: { type: "string", enum: Array.from({ length: 101 }, (_, i) => `o${i}`) } })),
    ).toMatch(/101 choices/);
    expect(interruptLimitError(form({ name: { type: "string", title: "t".repeat(10_001) } }))).toMatch(
      /field title is 10,001 characters/,
    );
    const q: Interrupt = {
      id: "q",
      sessionId: "s",
      kind: "question",
      createdAt: 1,
      title: "Q",
      questions: [{ question: "Which?", options: Array.from({ length: 101 }, (_, i) => ({ label: `${i}` })) }],
    };
    expect(interruptLimitError(q)).toMatch(/101 options/);
  });

  it("leaves a notice on the interrupt's message, or on one of its own", () => {
    const it1 = { ...form({}), messageId: "m1" };
    expect(refusedInterruptNotice(it1, "too big")).toEqual([
      {
        type: "block.updated",
        messageId: "m1",
        block: {
          id: "form_1:refused",
          kind: "notice",
          level: "warn",
          text: "The console refused this form: too big. Nothing was shown to the user; ask again with less.",
        },
      },
    ]);
    const events = refusedInterruptNotice(form({}), "too big");
    expect(events.map((e) => e.type)).toEqual(["message.updated", "block.updated"]);
  });
});
