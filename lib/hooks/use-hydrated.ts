"use client";
import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * false in the server render and in the browser's hydration of it, true from the render after
 * (and at once in anything mounted later, such as a client-side navigation's page).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
