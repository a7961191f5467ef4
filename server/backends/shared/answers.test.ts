import { describe, expect, it } from "vitest";
import type { Interrupt } from "@/lib/model";
import { questionAnswers } from "./answers";

const q = (over: Partial<NonNullable<Interrupt["questions"]>[number]> = {}) => ({
  question: "Pick",
  options: [{ label: "red" }, { label: "blue" }],
  ...over,
});

describe("questionAnswers", () => {
  it("trims the answers and checks them against the questions", () => {
    expect(
      questionAnswers({ questions: [q(), q({ multiple: true })] }, { answers: [[" red "], ["red", "blue", ""]] }),
    ).toEqual([["red"], ["red", "blue"]]);
    expect(questionAnswers({ questions: [q()] }, { answers: [["my own"]] })).toEqual([["my own"]]);
  });

  it("refuses what does not fit with a 400", () => {
    const bad = (it: Pick<Interrupt, "questions">, answers: string[][]) => () => questionAnswers(it, { answers });
    expect(bad({ questions: [q()] }, [["red"], ["blue"]])).toThrow(/Expected 1 answer/);
    expect(bad({ questions: [q()] }, [[" "]])).toThrow(/needs an answer/);
    expect(bad({ questions: [q()] }, [["red", "blue"]])).toThrow(/single answer/);
    expect(bad({ questions: [q({ custom: false })] }, [["green"]])).toThrow(/not an option/);
    expect(() => questionAnswers({ questions: [q()] }, { dismiss: true })).toThrow(/answered with/);
  });
});
