"use client";
import { useEffect, type RefObject } from "react";

const MARKER = /\[REDACTED:[a-z0-9][a-z0-9-]*\]/g;
const NAME = "sb-redacted";

/**
 * Highlights every `[REDACTED:…]` marker under `root` with the CSS Custom Highlight API: the
 * timeline components stay untouched and the text stays text (no HTML is injected).
 */
export function useMarkerHighlight(root: RefObject<HTMLElement | null>, deps: unknown[]): void {
  useEffect(() => {
    if (typeof CSS === "undefined" || !("highlights" in CSS) || typeof Highlight === "undefined") return;
    const el = root.current;
    if (!el) return;
    const frame = requestAnimationFrame(() => {
      const ranges: Range[] = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.nodeValue ?? "";
        if (!text.includes("[REDACTED:")) continue;
        MARKER.lastIndex = 0;
        for (let m = MARKER.exec(text); m; m = MARKER.exec(text)) {
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          ranges.push(r);
        }
      }
      CSS.highlights.set(NAME, new Highlight(...ranges));
    });
    return () => cancelAnimationFrame(frame);
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when to repaint
  }, deps);
  useEffect(() => () => void (typeof CSS !== "undefined" && "highlights" in CSS && CSS.highlights.delete(NAME)), []);
}
