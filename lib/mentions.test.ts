import { describe, expect, it } from "vitest";
import { fileUrl, insertMention, keptMentions, mentionAt, mentionParts } from "./mentions";

describe("mentionAt", () => {
  it("finds the @word the caret ends, at the start or after white space", () => {
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("look at @src/ap", 15)).toEqual({ start: 8, query: "src/ap" });
    expect(mentionAt("one\n@read", 9)).toEqual({ start: 4, query: "read" });
  });

  it("ignores an e-mail address, a finished word and a caret elsewhere", () => {
    expect(mentionAt("me@example.com", 14)).toBeUndefined();
    expect(mentionAt("@src/app.ts ", 12)).toBeUndefined();
    expect(mentionAt("@src and more", 13)).toBeUndefined();
    expect(mentionAt("no mention", 10)).toBeUndefined();
  });
});

describe("insertMention", () => {
  it("replaces the @query with @path and a space, caret after it", () => {
    expect(insertMention("see @ap", 4, 7, "src/app.ts")).toEqual({ text: "see @src/app.ts ", caret: 16 });
    expect(insertMention("@ap please", 0, 3, "app.ts")).toEqual({ text: "@app.ts please", caret: 8 });
  });
});

describe("keptMentions", () => {
  it("keeps the mentions still written whole in the text, once each", () => {
    expect(keptMentions("see @a.ts and @b.ts", ["a.ts", "b.ts", "a.ts"])).toEqual(["a.ts", "b.ts"]);
    expect(keptMentions("see @a.tsx", ["a.ts"])).toEqual([]);
    expect(keptMentions("removed", ["a.ts"])).toEqual([]);
  });
});

describe("mention parts", () => {
  it("builds file:// URLs with each segment encoded", () => {
    expect(fileUrl("/work/ws/", "src/a b#1.ts")).toBe("file:///work/ws/src/a%20b%231.ts");
  });

  it("carries files as text/plain file parts where the backend reads them, else not at all", () => {
    expect(mentionParts(["src/a.ts"], "/ws", { search: "backend", carry: "file" })).toEqual([
      { type: "file", mime: "text/plain", url: "file:///ws/src/a.ts", filename: "src/a.ts" },
    ]);
    expect(mentionParts(["src/a.ts"], "/ws", { search: "workspace", carry: "text" })).toEqual([]);
    expect(mentionParts(["src/a.ts"], undefined, { search: "backend", carry: "file" })).toEqual([]);
    expect(mentionParts(["src/a.ts"], "/ws", undefined)).toEqual([]);
  });
});
