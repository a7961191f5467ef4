import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ICONS_CSS_PATH, ICONS_SVG_PATH, iconsCss, iconsSvg } from "./icons-css";

describe("app/icons.css and public/icons/sprite.svg", () => {
  it("hold every icon, as generated from the icons' shapes (run scripts/icons-css.ts when it fails)", () => {
    const css = iconsCss();
    const svg = iconsSvg();
    expect(css).toMatch(/--sb-i-terminal: url\("\/icons\/sprite\.svg\?v=[0-9a-f]{10}#terminal"\);/);
    expect(css).toContain("--sb-i-gear:");
    expect(css).toContain("--sb-i-check-bold:");
    // Every property names a view of the sprite, and every view frames its own 24×24 cell.
    const names = [...css.matchAll(/--sb-i-([a-z-]+): url\("\/icons\/sprite\.svg\?v=[0-9a-f]{10}#\1"\);/g)].map(
      (m) => m[1],
    );
    expect(names.length).toBeGreaterThan(50);
    const views = [...svg.matchAll(/<view id='([a-z-]+)' viewBox='(\d+) 0 24 24'\/>/g)];
    expect(views.map((v) => v[1])).toEqual(names);
    expect(views.map((v) => Number(v[2]))).toEqual(views.map((_, i) => i * 24));
    expect(svg).not.toMatch(/currentColor|<script|href=/);
    expect(fs.readFileSync(ICONS_CSS_PATH, "utf8")).toBe(css);
    expect(fs.readFileSync(ICONS_SVG_PATH, "utf8")).toBe(svg);
  });
});
