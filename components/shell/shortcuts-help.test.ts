import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SHORTCUTS } from "./shortcuts-help";

/** README.md's keyboard paragraph. */
const readme = fs.readFileSync(path.join(import.meta.dirname, "..", "..", "README.md"), "utf8");
const paragraph = readme.slice(readme.indexOf("Keyboard:"), readme.indexOf("\n\n", readme.indexOf("Keyboard:")));

/** How the README writes a key combination: `Ctrl+K`, `Shift+Enter`, `1`–`9`. */
function written(keys: string[]): string {
  if (keys.includes("–")) return keys.map((k) => (k === "–" ? "–" : `\`${k}\``)).join("");
  return `\`${keys.map((k) => (k === "Ctrl/⌘" ? "Ctrl" : k)).join("+")}\``;
}

describe("the shortcuts help and README.md", () => {
  it("README's keyboard paragraph names every shortcut the help sheet lists", () => {
    expect(paragraph.length).toBeGreaterThan(100);
    for (const g of SHORTCUTS)
      for (const k of g.keys) expect(paragraph, `${k.keys.join("+")}: ${k.what}`).toContain(written(k.keys));
  });
});
