import { describe, expect, it } from "vitest";
import type { SearchHit } from "./api";
import { groupBySession, hitHref, matchedWords } from "./search";

const hit = (
  sessionId: string,
  messageId: string,
  snippet = "deploy the widget",
  matches: [number, number][] = [[0, 6]],
): SearchHit => ({
  backendId: "oc/1",
  sessionId,
  sessionTitle: `Title ${sessionId}`,
  messageId,
  role: "user",
  snippet,
  matches,
  createdAt: 1,
});

describe("search helpers", () => {
  it("opens a hit on its session with find on the first word found and the message", () => {
    expect(matchedWords(hit("s", "m", "go deploy now", [[3, 9]]))).toEqual(["deploy"]);
    expect(hitHref(hit("s 1", "m1", "go deploy now", [[3, 9]]))).toBe("/sessions/oc%2F1/s%201?find=deploy&message=m1");
    expect(hitHref(hit("s", "m2", "no marks", []))).toBe("/sessions/oc%2F1/s?message=m2");
  });

  it("groups hits by session in the order of each session's best hit", () => {
    const groups = groupBySession([hit("a", "1"), hit("b", "2"), hit("a", "3")]);
    expect(groups.map((g) => [g.sessionId, g.hits.map((h) => h.messageId)])).toEqual([
      ["a", ["1", "3"]],
      ["b", ["2"]],
    ]);
  });
});
