"use client";
import { useCallback, useSyncExternalStore } from "react";

export type Theme = "dark" | "light";

const listeners = new Set<() => void>();
const read = (): Theme =>
  typeof document !== "undefined" && document.documentElement.dataset.theme === "light" ? "light" : "dark";

/** The colour theme, persisted in localStorage and applied to `<html data-theme>`. */
export function useTheme(): [Theme, (t?: Theme) => void] {
  const theme = useSyncExternalStore(
    (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    read,
    () => "dark" as Theme,
  );
  const set = useCallback((t?: Theme) => {
    const next: Theme = t ?? (read() === "dark" ? "light" : "dark");
    document.documentElement.dataset.theme = next;
    try {
      localStorage.setItem("sb-theme", next);
    } catch {
      // private mode
    }
    for (const l of listeners) l();
  }, []);
  return [theme, set];
}
