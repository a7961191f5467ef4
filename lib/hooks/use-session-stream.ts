"use client";
import { useEffect, useState, useSyncExternalStore } from "react";
import { SessionStore, type SessionView } from "../client/session-store";

/** Live state of one session: snapshot + resumable event stream, batched per animation frame. */
export function useSessionStream(backendId: string, sessionId: string): { view: SessionView; store: SessionStore } {
  const [store] = useState(() => new SessionStore(backendId, sessionId));
  useEffect(() => {
    store.start();
    return () => store.stop();
  }, [store]);
  const view = useSyncExternalStore(store.subscribe, store.getView, store.getView);
  return { view, store };
}
