/**
 * How an icon is drawn (the icons are in icons.tsx): one element, a span masked by the icon's SVG
 * (24×24 viewBox, round strokes) and filled with currentColor (app/globals.css `.sb-icon`), sized by
 * `size` (px). Its shapes are written as SVG elements; each icon turns them into a data URL once,
 * when first drawn. One element per icon instead of an <svg> with its paths keeps the page's DOM
 * small (issue 46). Decorative by default (`aria-hidden`); a `title` makes it meaningful to screen
 * readers (`role="img"`, named by it).
 */
import { type CSSProperties, isValidElement, type ReactElement, type ReactNode } from "react";
import { cx } from "./cx";

export interface IconProps {
  size?: number;
  title?: string;
  className?: string;
  strokeWidth?: number;
}

/** An icon component, with its mask as a CSS `url()` for glyphs drawn by CSS alone (`::before`). */
export interface Icon {
  (props: IconProps): ReactElement;
  displayName: string;
  mask(strokeWidth?: number): string;
}

const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** SVG markup of an icon's shapes (static elements written in this file, never content). */
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

export function makeIcon(name: string, body: ReactNode): Icon {
  const masks = new Map<number, string>();
  const mask = (strokeWidth = 1.75) => {
    let m = masks.get(strokeWidth);
    if (!m) {
      const svg =
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24' fill='none' stroke='black' " +
        `stroke-width='${strokeWidth}' stroke-linecap='round' stroke-linejoin='round'>${markup(body)}</svg>`;
      // Only what a CSS url("…") needs escaped: the rest stays readable and short.
      m = `url("data:image/svg+xml,${svg.replace(/[<>#%"]/g, encodeURIComponent)}")`;
      masks.set(strokeWidth, m);
    }
    return m;
  };
  // biome-ignore lint/correctness/noComponentHookFactories: each icon is made once, at module load, never during a render
  function Icon({ size = 14, title, className, strokeWidth }: IconProps) {
    const style = { "--sb-icon-size": `${size}px`, "--sb-glyph": mask(strokeWidth) } as CSSProperties;
    return title ? (
      <span className={cx("sb-icon", className)} style={style} role="img" aria-label={title} title={title} />
    ) : (
      <span className={cx("sb-icon", className)} style={style} aria-hidden />
    );
  }
  Icon.displayName = name;
  Icon.mask = mask;
  return Icon;
}
