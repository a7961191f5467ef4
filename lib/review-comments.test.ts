import { describe, expect, it } from "vitest";
import {
  addComment,
  anchorFor,
  buildReviewPrompt,
  commentLabel,
  dropComments,
  editComment,
  fenceFor,
  type ReviewComment,
} from "./review-comments";
import { parseStored, serialize, storageKey } from "./review-comments-storage";

const comment = (over: Partial<ReviewComment> = {}): ReviewComment => ({
  id: "c1",
  path: "src/a.ts",
  side: "new",
  start: 3,
  end: 3,
  code: "const b = 20;",
  diff: false,
  text: "Why 20?",
  createdAt: 1,
  ...over,
});

describe("anchorFor", () => {
  const del = { kind: "del" as const, text: "const b = 2;", oldNo: 2 };
  const add = { kind: "add" as const, text: "const b = 20;", newNo: 2 };
  const ctx = { kind: "ctx" as const, text: "const c = 3;", oldNo: 3, newNo: 3 };

  it("a side of the split layout counts that side's numbers", () => {
    expect(anchorFor([del], "old")).toEqual({ side: "old", start: 2, end: 2, code: "const b = 2;", diff: false });
    expect(anchorFor([add, ctx], "new")).toEqual({
      side: "new",
      start: 2,
      end: 3,
      code: "const b = 20;\nconst c = 3;",
      diff: false,
    });
  });

  it("unified: removed lines only are the old side; kept lines the new side", () => {
    expect(anchorFor([del], "both")).toMatchObject({ side: "old", start: 2, end: 2, diff: false });
    expect(anchorFor([add, ctx], "both")).toMatchObject({ side: "new", start: 2, end: 3, diff: false });
  });

  it("unified: a range mixing removed and added lines quotes a diff excerpt on the new side's numbers", () => {
    expect(anchorFor([del, add, ctx], "both")).toEqual({
      side: "new",
      start: 2,
      end: 3,
      code: "-const b = 2;\n+const b = 20;\n const c = 3;",
      diff: true,
    });
  });

  it("no lines, no anchor; no numbers, no range", () => {
    expect(anchorFor([], "both")).toBeUndefined();
    expect(anchorFor([{ kind: "add", text: "x" }], "both")).toEqual({ side: "new", code: "x", diff: false });
  });
});

describe("labels and fences", () => {
  it("labels a line, a range, the old side, and a numberless patch", () => {
    expect(commentLabel(comment())).toBe("src/a.ts:3");
    expect(commentLabel(comment({ start: 3, end: 7 }))).toBe("src/a.ts:3-7");
    expect(commentLabel(comment({ side: "old" }))).toBe("src/a.ts:3 (before the change)");
    const { start: _s, end: _e, ...bare } = comment();
    expect(commentLabel(bare)).toBe("src/a.ts");
  });

  it("a fence is longer than any backtick run in the code", () => {
    expect(fenceFor("plain")).toBe("```");
    expect(fenceFor("a ``` b")).toBe("````");
    expect(fenceFor("x ````` y ` z")).toBe("``````");
  });
});

describe("buildReviewPrompt", () => {
  it("one comment: intro, place, fenced lines, text", () => {
    expect(buildReviewPrompt([comment()])).toBe(
      [
        "Please address this review comment on your changes:",
        "",
        "src/a.ts:3",
        "```ts",
        "const b = 20;",
        "```",
        "Why 20?",
      ].join("\n"),
    );
  });

  it("numbers several comments, fences each safely, marks diff excerpts", () => {
    const p = buildReviewPrompt([
      comment(),
      comment({ id: "c2", path: "README.md", start: 1, end: 2, code: "Use ```sh``` fences", text: "  Reword.  " }),
      comment({ id: "c3", path: "lib/x.py", code: "-a\n+b", diff: true, text: "ok?" }),
    ]);
    expect(p.startsWith("Please address these 3 review comments on your changes:\n\n1. src/a.ts:3\n```ts\n")).toBe(
      true,
    );
    expect(p).toContain("2. README.md:1-2\n````md\nUse ```sh``` fences\n````\nReword.");
    expect(p).toContain("3. lib/x.py:3\n```diff\n-a\n+b\n```\nok?");
  });
});

describe("edits and storage", () => {
  it("adds in reading order, edits, drops", () => {
    const a = comment({ id: "a", path: "b.ts", start: 1 });
    const b = comment({ id: "b", path: "a.ts", start: 9 });
    const c = comment({ id: "c", path: "a.ts", start: 2 });
    let list = addComment(addComment(addComment([], a), b), c);
    expect(list.map((x) => x.id)).toEqual(["c", "b", "a"]);
    list = editComment(list, "b", "changed");
    expect(list.find((x) => x.id === "b")?.text).toBe("changed");
    expect(dropComments(list, ["a", "c"]).map((x) => x.id)).toEqual(["b"]);
  });

  it("round-trips, and reads damaged or foreign data as nothing", () => {
    const list = [comment(), comment({ id: "c2", turnId: "msg_1", start: 5, end: 6 })];
    expect(parseStored(serialize(list))).toEqual(list);
    expect(parseStored(null)).toEqual([]);
    expect(parseStored("{not json")).toEqual([]);
    expect(parseStored(JSON.stringify({ v: 2, comments: list }))).toEqual([]);
    expect(parseStored(JSON.stringify({ v: 1, comments: [{ id: "x", text: "<b>hi</b>" }] }))).toEqual([]);
  });

  it("keys by backend and session", () => {
    expect(storageKey("local", "ses_1")).toBe("sb-review-comments:local/ses_1");
    // Each signed-in person has their own; the console token keeps the key it always had.
    expect(storageKey("local", "ses_1", "token")).toBe("sb-review-comments:local/ses_1");
    expect(storageKey("local", "ses_1", "ada@idp")).toBe("sb-review-comments:ada%40idp:local/ses_1");
    expect(storageKey("local", "ses_1", "olga")).not.toBe(storageKey("local", "ses_1", "ada"));
  });
});
