"use client";
import { useRouter } from "next/navigation";
import { lazy, Suspense, useEffect } from "react";
import { isTyping, setOverlay, useOverlay } from "./commands";

// The palette itself (session and message search, the command list) loads at its first opening.
const Palette = lazy(() => import("./palette").then((m) => ({ default: m.Palette })));

/**
 * Ctrl/Cmd+K (and `?` for the shortcuts) anywhere in the console. The open/close state lives in
 * components/shell/commands.ts so the help sheet and the palette never stack.
 */
export function CommandPalette() {
  const overlay = useOverlay();
  const router = useRouter();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.key === "f" || e.key === "F") && (e.metaKey || e.ctrlKey) && e.shiftKey && !e.altKey) {
        e.preventDefault();
        setOverlay(null);
        router.push("/search");
      } else if ((e.key === "k" || e.key === "K") && (e.metaKey || e.ctrlKey) && !e.altKey) {
        e.preventDefault();
        setOverlay(overlay === "palette" ? null : "palette");
      } else if (e.key === "?" && !e.metaKey && !e.ctrlKey && !e.altKey && !isTyping(e.target) && overlay === null) {
        e.preventDefault();
        setOverlay("help");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [overlay, router]);
  return overlay === "palette" ? (
    <Suspense fallback={null}>
      <Palette onClose={() => setOverlay(null)} />
    </Suspense>
  ) : null;
}
