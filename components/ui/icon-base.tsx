/**
 * How an icon is drawn (the icons are in icons.tsx): one element, a span masked by the icon's SVG
 * (24×24 viewBox, round strokes) and filled with currentColor (app/globals.css `.sb-icon`), sized by
 * `size` (px). One element per icon instead of an <svg> with its paths keeps the page's DOM small
 * (issue 46). Each icon's shapes are written as SVG elements; their data URL lives in a stylesheet,
 * app/icons.css (generated from them by scripts/icons-css.ts, checked by its test), as the custom
 * property `--sb-i-<name>`, so the span's own style holds no `url()` (the XSS tripwires in
 * e2e/xss.spec.ts flag any style attribute that does). Decorative by default (`aria-hidden`); a
 * `title` makes it meaningful to screen readers (`role="img"`, named by it).
 */
import { type CSSProperties, isValidElement, type ReactElement, type ReactNode } from "react";
import { cx } from "./cx";

export interface IconProps {
  size?: number;
  title?: string;
  className?: string;
}

/** An icon component, with its mask as a CSS value for glyphs drawn by CSS alone (`::before`). */
export interface Icon {
  (props: IconProps): ReactElement;
  displayName: string;
  /** `var(--sb-i-<name>)`: the icon's mask image, from app/icons.css. */
  glyph: string;
}

const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** SVG markup of an icon's shapes (static elements written in this repository, never content). */
function markup(node: ReactNode): string {
  if (Array.isArray(node)) return node.map(markup).join("");
  if (!isValidElement(node)) return "";
  const { children, ...attrs } = node.props as Record<string, unknown>;
  if (typeof node.type !== "string") return markup(children as ReactNode); // a fragment
  const a = Object.entries(attrs)
    .map(([k, v]) => ` ${kebab(k)}='${v === "currentColor" ? "black" : String(v)}'`)
    .join("");
  return `<${node.type}${a}>${markup(children as ReactNode)}</${node.type}>`;
}

/** Every icon made, by its CSS name: what scripts/icons-css.ts writes into app/icons.css. */
export const ICON_SHAPES = new Map<string, ReactNode>();

/** An icon's mask as a CSS `url()` of its SVG (only what a CSS url("…") needs escaped is escaped). */
export function iconMaskUrl(body: ReactNode): string {
  const svg =
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24' fill='none' stroke='black' " +
    `stroke-width='1.75' stroke-linecap='round' stroke-linejoin='round'>${markup(body)}</svg>`;
  return `url("data:image/svg+xml,${svg.replace(/[<>#%"]/g, encodeURIComponent)}")`;
}

export function makeIcon(name: string, body: ReactNode): Icon {
  const cssName = kebab(name.replace(/^Icon/, "")).replace(/^-/, "");
  ICON_SHAPES.set(cssName, body);
  const glyph = `var(--sb-i-${cssName})`;
  // biome-ignore lint/correctness/noComponentHookFactories: each icon is made once, at module load, never during a render
  function Icon({ size = 14, title, className }: IconProps) {
    const style = { "--sb-icon-size": `${size}px`, "--sb-glyph": glyph } as CSSProperties;
    return title ? (
      <span className={cx("sb-icon", className)} style={style} role="img" aria-label={title} title={title} />
    ) : (
      <span className={cx("sb-icon", className)} style={style} aria-hidden />
    );
  }
  Icon.displayName = name;
  Icon.glyph = glyph;
  return Icon;
}
