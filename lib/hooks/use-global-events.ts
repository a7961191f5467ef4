"use client";
import { createContext, useContext, useSyncExternalStore } from "react";
import type { GlobalStore, GlobalView } from "../client/global-store";

export const GlobalStoreContext = createContext<GlobalStore | null>(null);

/** Live cross-session state (backends, statuses, interrupts) from `GET /api/events`. */
export function useGlobalEvents(): GlobalView {
  const store = useContext(GlobalStoreContext);
  if (!store) throw new Error("useGlobalEvents needs <Providers>");
  return useSyncExternalStore(store.subscribe, store.getView, store.getView);
}
