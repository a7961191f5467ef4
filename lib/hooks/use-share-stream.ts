"use client";
import { useEffect, useState, useSyncExternalStore } from "react";
import type { SharedSnapshot } from "../api";
import { ShareStore, type ShareView } from "../client/share-store";

/** A shared session: the server-rendered snapshot, then its live stream (for a live share). */
export function useShareStream(token: string, initial: SharedSnapshot): ShareView {
  const [store] = useState(() => new ShareStore(token, initial));
  useEffect(() => {
    store.start();
    return () => store.stop();
  }, [store]);
  return useSyncExternalStore(store.subscribe, store.getView, store.getServerView);
}
