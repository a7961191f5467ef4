"use client";
import { useRouter } from "next/navigation";
import { useContext, useEffect, useSyncExternalStore } from "react";
import { getBaseTitle, subscribeBaseTitle } from "@/lib/client/page-title";
import { GlobalStoreContext, useGlobalEvents } from "@/lib/hooks/use-global-events";
import { notificationsOn } from "@/lib/hooks/use-notifications";
import { interruptAnchor } from "@/lib/timeline/selectors";

/**
 * Makes pending interrupts impossible to miss: the tab title carries their count, and a browser
 * notification fires when one arrives while the tab is hidden (once the user allowed it, and unless
 * they muted it with the sidebar's bell).
 */
export function AttentionManager() {
  const live = useGlobalEvents();
  const store = useContext(GlobalStoreContext);
  const router = useRouter();
  const base = useSyncExternalStore(subscribeBaseTitle, getBaseTitle, getBaseTitle);
  const count = live.interrupts.length;

  useEffect(() => {
    document.title = count > 0 ? `(${count}) ${base}` : base;
  }, [count, base]);

  useEffect(() => {
    if (!store) return;
    return store.onArrival((it) => {
      if (!notificationsOn() || !document.hidden) return;
      const n = new Notification(it.kind === "permission" ? "Permission needed" : "The agent has a question", {
        body: it.title,
        tag: it.id,
      });
      n.onclick = () => {
        window.focus();
        router.push(`/sessions/${encodeURIComponent(it.backendId)}/${encodeURIComponent(interruptAnchor(it))}`);
        n.close();
      };
    });
  }, [store, router]);

  return null;
}
