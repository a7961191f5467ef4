import { describe, expect, it } from "vitest";
import type { Message } from "../model";
import { findHits, searchableText } from "./find";

const msg = (id: string, ...texts: string[]): Message => ({
  id,
  sessionId: "s",
  role: "assistant",
  createdAt: 1,
  blocks: texts.map((text, i) => ({ id: `${id}-${i}`, kind: "text" as const, text })),
});

describe("find in session", () => {
  it("finds every occurrence, case-insensitively, in timeline order", () => {
    const messages = [msg("a", "Zebra and zebra"), msg("b", "nothing"), msg("c", "one ZEBRA", "<b>zebra</b>")];
    expect(findHits(messages, "zebra")).toEqual([
      { messageId: "a", index: 0, occurrence: 0 },
      { messageId: "a", index: 0, occurrence: 1 },
      { messageId: "c", index: 2, occurrence: 0 },
      { messageId: "c", index: 2, occurrence: 1 },
    ]);
  });

  it("ignores blank queries and non-text blocks", () => {
    const m: Message = { ...msg("t"), blocks: [{ id: "r", kind: "reasoning", text: "secret plan" }] };
    expect(findHits([m], "plan")).toEqual([]);
    expect(findHits([msg("a", "x")], "   ")).toEqual([]);
  });

  it("caches the searchable text per message object", () => {
    const m = msg("a", "Hello");
    expect(searchableText(m)).toBe("hello");
    expect(searchableText(m)).toBe(searchableText(m));
  });
});
