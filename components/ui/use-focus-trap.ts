"use client";
import { useEffect, useRef, type RefObject } from "react";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

/** The elements Tab can reach inside `root`, in order (hidden ones left out). */
export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !el.closest("[inert]") && (el.offsetWidth > 0 || el.offsetHeight > 0 || el.getClientRects().length > 0),
  );
}

/** Open traps, innermost last: only the innermost answers Tab and Escape. */
const stack: symbol[] = [];

/**
 * Keeps the keyboard inside a dialog, sheet or drawer while `active`: Tab and Shift+Tab cycle through
 * its controls, Escape calls `onEscape`, and on close the focus goes back to where it was before
 * (the button that opened it). The first control (or `initialFocus`) gets the focus on open.
 */
export function useFocusTrap(
  ref: RefObject<HTMLElement | null>,
  {
    active = true,
    onEscape,
    initialFocus,
    returnFocus,
  }: {
    active?: boolean;
    onEscape?: () => void;
    initialFocus?: RefObject<HTMLElement | null>;
    /** Where the focus goes on close when what had it before is gone (a menu item that opened this). */
    returnFocus?: RefObject<HTMLElement | null>;
  } = {},
) {
  const escapeRef = useRef(onEscape);
  escapeRef.current = onEscape;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the refs are read when the trap activates
  useEffect(() => {
    if (!active) return;
    const id = Symbol("focus-trap");
    stack.push(id);
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = ref.current;
    if (root && !root.contains(document.activeElement)) {
      const first = initialFocus?.current ?? focusables(root)[0] ?? root;
      if (first === root && !root.hasAttribute("tabindex")) root.tabIndex = -1;
      first.focus({ preventScroll: true });
    }
    const onKey = (e: KeyboardEvent) => {
      if (stack[stack.length - 1] !== id) return;
      const el = ref.current;
      if (!el) return;
      if (e.key === "Escape" && escapeRef.current) {
        e.preventDefault();
        e.stopPropagation();
        escapeRef.current();
        return;
      }
      if (e.key !== "Tab") return;
      const items = focusables(el);
      if (items.length === 0) {
        e.preventDefault();
        return;
      }
      const first = items[0]!;
      const last = items[items.length - 1]!;
      const current = document.activeElement;
      if (!el.contains(current)) {
        e.preventDefault();
        (e.shiftKey ? last : first).focus();
      } else if (e.shiftKey && (current === first || current === el)) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && current === last) {
        e.preventDefault();
        first.focus();
      }
    };
    // Capture phase, so the innermost trap answers Escape before page-level shortcuts do.
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("keydown", onKey, true);
      const i = stack.indexOf(id);
      if (i >= 0) stack.splice(i, 1);
      // Give the focus back unless the user already moved it somewhere else on purpose.
      const now = document.activeElement;
      const back = before?.isConnected && before.offsetParent !== null ? before : returnFocus?.current;
      if (back && (!now || now === document.body || root?.contains(now) || !now.isConnected))
        back.focus({ preventScroll: true });
    };
  }, [active]);
}
