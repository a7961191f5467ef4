"use client";
import { useCallback, useEffect, useSyncExternalStore } from "react";

/**
 * Browser notifications for interrupts: the browser's permission plus the console's own mute (a page
 * cannot take back a permission once granted, so "off" is kept in localStorage). One store shared by
 * the sidebar's bell, the inbox's "Notify me" and the attention manager that fires them.
 */
export type NotificationState = "unsupported" | "default" | "denied" | "on" | "muted";

const MUTE_KEY = "sb-notifications";
const listeners = new Set<() => void>();
const changed = () => {
  for (const l of listeners) l();
};

function muted(): boolean {
  try {
    return localStorage.getItem(MUTE_KEY) === "off";
  } catch {
    return false;
  }
}

function read(): NotificationState {
  if (typeof Notification === "undefined") return "unsupported";
  if (Notification.permission === "granted") return muted() ? "muted" : "on";
  return Notification.permission;
}

/** Whether a notification should fire now (permission granted and not muted). */
export function notificationsOn(): boolean {
  return read() === "on";
}

function subscribe(fn: () => void) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function useNotifications(): { state: NotificationState; toggle(onGranted?: () => void): void } {
  const state = useSyncExternalStore(subscribe, read, () => "unsupported" as NotificationState);
  // The permission can change in the browser's site settings: follow it where the browser tells.
  useEffect(() => {
    if (typeof navigator === "undefined" || !navigator.permissions) return;
    let status: PermissionStatus | undefined;
    void navigator.permissions
      .query({ name: "notifications" })
      .then((s) => {
        status = s;
        s.onchange = changed;
      })
      .catch(() => undefined);
    return () => {
      if (status) status.onchange = null;
    };
  }, []);
  const toggle = useCallback((onGranted?: () => void) => {
    const now = read();
    if (now === "default") {
      void Notification.requestPermission().then((p) => {
        changed();
        if (p === "granted") onGranted?.();
      });
      return;
    }
    if (now === "on" || now === "muted") {
      try {
        if (now === "on") localStorage.setItem(MUTE_KEY, "off");
        else localStorage.removeItem(MUTE_KEY);
      } catch {
        // private mode: stays as it is
      }
      changed();
    }
  }, []);
  return { state, toggle };
}
