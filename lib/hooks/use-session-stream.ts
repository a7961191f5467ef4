"use client";
import { useEffect, useState, useSyncExternalStore } from "react";
import { SessionStore, type InitialSnapshot, type SessionView } from "../client/session-store";

/**
 * Live state of one session: snapshot + resumable event stream, batched per animation frame.
 * `initial` is the snapshot the page was rendered with on the server, when it had one.
 */
export function useSessionStream(
  backendId: string,
  sessionId: string,
  initial?: InitialSnapshot,
): { view: SessionView; store: SessionStore } {
  const [store] = useState(() => new SessionStore(backendId, sessionId, initial));
  useEffect(() => {
    store.start();
    return () => store.stop();
  }, [store]);
  const view = useSyncExternalStore(store.subscribe, store.getView, store.getView);
  return { view, store };
}
