/**
 * Icon shapes as data, shared by the inline SVG icons (icons.tsx) and the CSS masks drawn from them
 * (glyphMask): a tool card's leading glyph is its header button's ::before, not an <svg> with two or
 * three children, on every tool call in the timeline (issue 46, DOM per block).
 */
export type GlyphShape =
  | { readonly d: string }
  | { readonly cx: number; readonly cy: number; readonly r: number }
  | { readonly x: number; readonly y: number; readonly width: number; readonly height: number; readonly rx?: number };
export type Glyph = readonly GlyphShape[];

const FILE: GlyphShape = { d: "M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" };
const FILE_FOLD: GlyphShape = { d: "M14 3v5h5" };
const RING: GlyphShape = { cx: 12, cy: 12, r: 9 };

export const GLYPH = {
  terminal: [{ d: "m5 8 4 4-4 4" }, { d: "M12 17h7" }],
  file: [FILE, FILE_FOLD],
  fileText: [FILE, FILE_FOLD, { d: "M9 13h6M9 17h4" }],
  filePlus: [FILE, FILE_FOLD, { d: "M12 11v6M9 14h6" }],
  pencil: [{ d: "M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z" }, { d: "m14.5 5.5 3 3" }],
  patch: [
    { d: "M12 3v7M8.5 6.5h7" },
    { d: "M8.5 14h7" },
    { d: "M6 21h12a1 1 0 0 0 1-1V4a1 1 0 0 0-1-1H6a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1z" },
  ],
  search: [{ cx: 11, cy: 11, r: 6.5 }, { d: "m20 20-4.2-4.2" }],
  files: [
    { d: "M15 2H9a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2V6z" },
    { d: "M15 2v4h4" },
    { d: "M4 8v12a2 2 0 0 0 2 2h9" },
  ],
  folder: [{ d: "M4 20h16a1 1 0 0 0 1-1V8a1 1 0 0 0-1-1h-8l-2-3H4a1 1 0 0 0-1 1v14a1 1 0 0 0 1 1z" }],
  globe: [RING, { d: "M3 12h18" }, { d: "M12 3a14 14 0 0 1 0 18a14 14 0 0 1 0-18z" }],
  bot: [{ x: 4, y: 8, width: 16, height: 12, rx: 2 }, { d: "M12 8V4M9 4h6" }, { d: "M9 13v2M15 13v2" }],
  listChecks: [{ d: "m3 6 2 2 3-3" }, { d: "m3 16 2 2 3-3" }, { d: "M12 7h9M12 17h9" }],
  help: [RING, { d: "M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.6v.6" }, { d: "M12 17.2v.1" }],
  wrench: [
    {
      d: "M14.7 6.3a4 4 0 0 0 5 5l-.1.1-8.9 8.9a2.1 2.1 0 0 1-3-3l8.9-8.9.1-.1a4 4 0 0 1 5-5l-2.5 2.5.5 2.5 2.5.5",
    },
  ],
} as const satisfies Record<string, Glyph>;

function shapeMarkup(s: GlyphShape): string {
  if ("d" in s) return `<path d='${s.d}'/>`;
  if ("r" in s) return `<circle cx='${s.cx}' cy='${s.cy}' r='${s.r}'/>`;
  return `<rect x='${s.x}' y='${s.y}' width='${s.width}' height='${s.height}'${s.rx === undefined ? "" : ` rx='${s.rx}'`}/>`;
}

/** A glyph as a CSS `url()` of an SVG data URL, for `mask-image` (black strokes on transparent). */
export function glyphMask(glyph: Glyph, strokeWidth = 1.75): string {
  const svg =
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24' fill='none' stroke='black' " +
    `stroke-width='${strokeWidth}' stroke-linecap='round' stroke-linejoin='round'>${glyph.map(shapeMarkup).join("")}</svg>`;
  return `url("data:image/svg+xml,${encodeURIComponent(svg)}")`;
}
