"use client";
import { useEffect, useSyncExternalStore } from "react";

/** An action of the command palette (components/shell/command-palette.tsx). */
export interface Command {
  id: string;
  label: string;
  /** Group heading in the palette. */
  group: string;
  /** Extra words the palette matches on. */
  keywords?: string;
  /** A shortcut shown beside the label. */
  shortcut?: string;
  disabledReason?: string;
  run(): void;
}

/** Commands offered by whatever is on screen (the open session registers stop, fork, review, share). */
let registered: Command[][] = [];
let flat: Command[] = [];
const listeners = new Set<() => void>();
const emit = () => {
  flat = registered.flat();
  for (const l of listeners) l();
};
const subscribe = (fn: () => void) => {
  listeners.add(fn);
  return () => listeners.delete(fn);
};

export function useCommands(commands: Command[]) {
  useEffect(() => {
    registered = [...registered, commands];
    emit();
    return () => {
      registered = registered.filter((c) => c !== commands);
      emit();
    };
  }, [commands]);
}

export function useRegisteredCommands(): Command[] {
  return useSyncExternalStore(
    subscribe,
    () => flat,
    () => flat,
  );
}

/** Which console-wide overlay is open: the palette or the shortcuts help (one at a time). */
export type Overlay = "palette" | "help" | null;
let overlay: Overlay = null;
const overlayListeners = new Set<() => void>();

export function setOverlay(next: Overlay) {
  overlay = next;
  for (const l of overlayListeners) l();
}

export function useOverlay(): Overlay {
  return useSyncExternalStore(
    (fn) => {
      overlayListeners.add(fn);
      return () => overlayListeners.delete(fn);
    },
    () => overlay,
    () => null,
  );
}

/** Whether a key press lands in a text field (single-key shortcuts stay out of the way there). */
export function isTyping(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  return Boolean(
    t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable),
  );
}
