import { describe, expect, it } from "vitest";
import type { Interrupt } from "@/lib/model";
import { isApiError } from "../../errors";
import { actionKind, replyFor, requestInterrupt } from "./requests";

const full = (x: ReturnType<typeof requestInterrupt>): Interrupt => ({ id: "i", sessionId: "s", createdAt: 1, ...x });

describe("Opal client/* requests ↔ interrupts", () => {
  it("ask_user: a question with its choices and free text; the answer is {answer}; dismissing is an error", () => {
    const it = full(
      requestInterrupt("client/ask_user", { session_id: "x", question: "Which DB?", choices: ["pg", "sqlite"] }),
    );
    expect(it).toMatchObject({
      kind: "question",
      questions: [{ question: "Which DB?", options: [{ label: "pg" }, { label: "sqlite" }], custom: true }],
    });
    expect(replyFor(it, { answers: [["mysql"]] })).toEqual({
      reply: { result: { answer: "mysql" } },
      outcome: "answered",
    });
    expect(replyFor(it, { dismiss: true }).reply).toHaveProperty("error");
    expect(
      full(requestInterrupt("client/ask_user", { question: "Free?", choices: null })).questions![0]!.options,
    ).toEqual([]);
  });
  it("confirm: one button per action, answered with the action's own name", () => {
    expect(["allow", "allow_session", "deny", "always_allow", "reject", "no"].map(actionKind)).toEqual([
      "allow_once",
      "allow_always",
      "reject",
      "allow_always",
      "reject",
      "reject",
    ]);
    const it = full(
      requestInterrupt("client/confirm", { title: "Delete?", message: "rm -rf build", actions: ["allow", "deny"] }),
    );
    expect(it.permission).toEqual({
      action: "Delete?",
      patterns: ["rm -rf build"],
      options: [
        { id: "allow", label: "Allow", kind: "allow_once" },
        { id: "deny", label: "Deny", kind: "reject" },
      ],
    });
    expect(replyFor(it, { decision: "reject" }).reply).toEqual({ result: { action: "deny" } });
    expect(replyFor(it, { dismiss: true }).reply).toEqual({ result: { action: "deny" } });
    try {
      replyFor(it, { decision: "allow_always" });
      expect.unreachable();
    } catch (err) {
      expect(isApiError(err) && err.status).toBe(400);
    }
  });
  it("input: the form's text field, masked when sensitive; the answer is {text}", () => {
    const it = full(requestInterrupt("client/input", { prompt: "Token?", sensitive: true }));
    expect(it).toMatchObject({ kind: "input", input: { prompt: "Token?", sensitive: true } });
    expect(replyFor(it, { text: "abc" }).reply).toEqual({ result: { text: "abc" } });
    expect(replyFor(it, { action: "decline" }).reply).toHaveProperty("error");
  });
});
