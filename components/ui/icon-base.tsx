/**
 * How an icon is drawn (the icons are in icons.tsx): one element, a span masked by the icon's SVG
 * (24×24 viewBox, round strokes) and filled with currentColor (app/globals.css `.sb-icon`), sized by
 * `size` (px). One element per icon instead of an <svg> with its paths keeps the page's DOM small
 * (issue 46). Each icon's shapes are written as SVG elements; scripts/icons-css.ts draws them all into
 * one sprite, public/icons/sprite.svg, and names each icon's view of it in app/icons.css as the custom
 * property `--sb-i-<name>` (its test keeps both fresh), so the span's own style holds no `url()`
 * (the XSS tripwires in e2e/xss.spec.ts flag any style attribute that does). Decorative by default (`aria-hidden`); a
 * `title` makes it meaningful to screen readers (`role="img"`, named by it).
 */
import type { CSSProperties, ReactElement, ReactNode } from "react";
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
  /** Its shapes as SVG elements, which scripts/icons-css.ts turns into that image. */
  shape: ReactNode;
}

/** The name an icon's mask has in app/icons.css: `IconChevronRight` → `chevron-right`. */
export function iconCssName(displayName: string): string {
  return displayName
    .replace(/^Icon/, "")
    .replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
    .replace(/^-/, "");
}

export function makeIcon(name: string, shape: ReactNode): Icon {
  const glyph = `var(--sb-i-${iconCssName(name)})`;
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
  Icon.shape = shape;
  return Icon;
}
