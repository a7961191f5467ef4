import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ICONS_CSS_PATH, iconsCss } from "./icons-css";

describe("app/icons.css", () => {
  it("holds every icon's mask, as generated from the icons' shapes (run scripts/icons-css.ts when it fails)", () => {
    const css = iconsCss();
    expect(css).toContain("--sb-i-terminal: url(\"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'");
    expect(css).toContain("--sb-i-gear:");
    expect(fs.readFileSync(ICONS_CSS_PATH, "utf8")).toBe(css);
  });
});
