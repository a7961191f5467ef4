import { describe, expect, it } from "vitest";
import { splitChunks, splitIncremental, splitMarkdownBlocks, type MarkdownChunk } from "./markdown-chunks";

const doc = [
  "# Title",
  "",
  "Some text",
  "over two lines.",
  "",
  "- a list",
  "",
  "  continued item",
  "",
  "```ts",
  "const a = 1;",
  "",
  "const b = 2;",
  "```",
  "",
  "> quote",
  "",
  "",
  "Last paragraph with `code`.",
].join("\n");

describe("markdown chunks", () => {
  it("splits at blank lines outside fences, with offsets into the text", () => {
    const chunks = splitChunks(doc);
    expect(chunks.map((c) => c.text)).toEqual([
      "# Title",
      "Some text\nover two lines.",
      "- a list\n\n  continued item",
      "```ts\nconst a = 1;\n\nconst b = 2;\n```",
      "> quote",
      "Last paragraph with `code`.",
    ]);
    for (const c of chunks) expect(doc.slice(c.start, c.start + c.text.length)).toBe(c.text);
    expect(splitMarkdownBlocks(doc)).toEqual(chunks.map((c) => c.text));
  });

  it("streamed character by character, re-splitting only the tail gives the same chunks", () => {
    let prev: { text: string; chunks: MarkdownChunk[] } | null = null;
    for (let n = 0; n <= doc.length; n++) {
      const text = doc.slice(0, n);
      const chunks = splitIncremental(prev, text);
      expect(chunks).toEqual(splitChunks(text));
      if (prev && prev.chunks.length > 3) expect(chunks[0]).toBe(prev.chunks[0]); // finished chunks are reused
      prev = { text, chunks };
    }
  });

  it("starts over when the text was replaced rather than extended", () => {
    const prev = { text: doc, chunks: splitChunks(doc) };
    expect(splitIncremental(prev, "other\n\ntext\n\nhere")).toEqual(splitChunks("other\n\ntext\n\nhere"));
  });
});
