import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ftsQuery, MAX_QUERY_WORDS } from "./query";

describe("ftsQuery", () => {
  it("quotes each word, requires all, and lets the last one be a prefix", () => {
    expect(ftsQuery("deploy the Widget")).toBe('"deploy" "the" "Widget"*');
    expect(ftsQuery("  über-café  ")).toBe('"über" "café"*');
  });

  it("gives nothing to search for input without words", () => {
    for (const q of ["", "   ", "***", '"""', "()", "-", "\u0000\u0000"]) expect(ftsQuery(q)).toBeUndefined();
  });

  it("keeps at most the first words of very long input", () => {
    const q = ftsQuery("word ".repeat(10_000))!;
    expect(q.split(" ")).toHaveLength(MAX_QUERY_WORDS);
  });

  it("turns hostile input into queries FTS5 accepts", () => {
    const db = new Database(":memory:");
    db.exec("CREATE VIRTUAL TABLE t USING fts5(text)");
    db.prepare("INSERT INTO t (text) VALUES (?)").run("a NEAR b and the quoted * star");
    const hostile = [
      '"unbalanced',
      "NEAR(a b",
      "a NEAR b",
      "-a",
      "a OR b AND NOT c",
      "*",
      "star*",
      "((((",
      "a\u0000b",
      "col:text",
      "^start",
      "'; DROP TABLE t; --",
      "x".repeat(100_000),
    ];
    for (const q of hostile) {
      const match = ftsQuery(q);
      if (match) expect(() => db.prepare("SELECT rowid FROM t WHERE t MATCH ?").all(match)).not.toThrow();
    }
    expect(db.prepare("SELECT rowid FROM t WHERE t MATCH ?").all(ftsQuery("a NEAR b")!)).toHaveLength(1);
    expect(db.prepare("SELECT rowid FROM t WHERE t MATCH ?").all(ftsQuery("quot")!)).toHaveLength(1);
    db.close();
  });
});
