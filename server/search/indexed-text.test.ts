import { describe, expect, it } from "vitest";
import { indexedPrefix, MAX_INDEXED_BYTES } from "./indexed-text";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("indexedPrefix", () => {
  it("keeps a short text whole and cuts a long one to the byte bound", () => {
    expect(indexedPrefix("hello")).toBe("hello");
    const long = "a".repeat(MAX_INDEXED_BYTES + 10);
    expect(indexedPrefix(long)).toBe("a".repeat(MAX_INDEXED_BYTES));
  });

  it("never splits a character or a surrogate pair at the cut", () => {
    expect(indexedPrefix("ab😀", 5)).toBe("ab");
    expect(indexedPrefix("ab😀", 6)).toBe("ab😀");
    expect(indexedPrefix("aé", 2)).toBe("a");
    const emoji = indexedPrefix("😀".repeat(100_000));
    expect(bytes(emoji)).toBe(MAX_INDEXED_BYTES);
    expect(emoji).toBe("😀".repeat(MAX_INDEXED_BYTES / 4));
    const cjk = indexedPrefix("字".repeat(100_000));
    expect(bytes(cjk)).toBeLessThanOrEqual(MAX_INDEXED_BYTES);
    expect(cjk.length).toBe(Math.floor(MAX_INDEXED_BYTES / 3));
  });
});
