import { describe, expect, it } from "vitest";
import { guessLang, normalizeLang } from "./code-languages";

describe("code languages", () => {
  it("guesses a file's language from its name, then its extension", () => {
    expect(guessLang("src/a.ts")).toBe("typescript");
    expect(guessLang("C:\\repo\\Dockerfile")).toBe("docker");
    expect(guessLang(".env.local")).toBe("dotenv");
    expect(guessLang("notes")).toBeUndefined();
    expect(guessLang(undefined)).toBeUndefined();
  });

  it("reads a fence's info string, plain text being no language", () => {
    expect(normalizeLang("language-py")).toBe("python");
    expect(normalizeLang("ts {1,3}")).toBe("typescript");
    expect(normalizeLang("text")).toBeUndefined();
    expect(normalizeLang("haskell")).toBe("haskell");
  });
});
