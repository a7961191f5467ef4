"use client";
import { useSyncExternalStore } from "react";
import { liveLink } from "../client/live-link";

/** Whether this tab holds the browser's one live connection (the others share it). */
export function useLiveLeader(): boolean {
  const link = liveLink();
  return useSyncExternalStore(
    link.onState,
    () => link.isLeader,
    () => false,
  );
}
