"use client";
import { apiGet, apiSend } from "@/lib/client/api-client";
import type { PushDevice, PushDeviceList, PushKey, PushTestResult } from "@/lib/push-api";

/*
 * Web Push in the browser (docs/push.md): the service worker's registration and this device's
 * subscription. Loaded on demand (`import()`) by Settings and the sidebar's bell, so the pages'
 * first JavaScript does not carry it.
 */

/** The console's id for this browser's subscription (kept to mark "this device" in the list). */
const DEVICE_KEY = "sb-push-device";

export function pushSupported(): boolean {
  return (
    typeof window !== "undefined" &&
    window.isSecureContext &&
    "serviceWorker" in navigator &&
    "PushManager" in window &&
    typeof Notification !== "undefined"
  );
}

export function thisDeviceId(): string | null {
  try {
    return localStorage.getItem(DEVICE_KEY);
  } catch {
    return null;
  }
}

function remember(id: string | null) {
  try {
    if (id) localStorage.setItem(DEVICE_KEY, id);
    else localStorage.removeItem(DEVICE_KEY);
  } catch {
    // private mode: the list just does not mark this device
  }
}

export async function registration(): Promise<ServiceWorkerRegistration> {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

function deviceLabel(): string {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrome\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : "Browser";
  const os = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
      ? "iOS"
      : /Mac OS X/.test(ua)
        ? "macOS"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : "";
  return os ? `${browser} on ${os}` : browser;
}

/** Asks for the permission if needed, subscribes with the console's key and registers the device. */
export async function subscribeThisDevice(): Promise<string> {
  if (!pushSupported())
    throw new Error("This browser cannot receive pushes (on iOS: add the console to the home screen first)");
  const permission =
    Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  if (permission !== "granted") throw new Error("Notifications are blocked for this site in the browser's settings");
  const reg = await registration();
  const { publicKey } = await apiGet<PushKey>("/api/push/key");
  let sub = await reg.pushManager.getSubscription();
  const key = sub?.options.applicationServerKey;
  if (sub && key && toBase64url(key) !== publicKey) {
    // Subscribed under another key (the console's key changed): subscribe afresh.
    await sub.unsubscribe();
    sub = null;
  }
  sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64url(publicKey) });
  const { id } = await apiSend<{ id: string }>("POST", "/api/push/subscriptions", {
    ...sub.toJSON(),
    label: deviceLabel(),
  });
  remember(id);
  return id;
}

export async function listDevices(): Promise<PushDevice[]> {
  return (await apiGet<PushDeviceList>("/api/push/subscriptions")).items;
}

export async function removeDevice(id: string): Promise<void> {
  await apiSend<unknown>("DELETE", `/api/push/subscriptions/${encodeURIComponent(id)}`);
  if (id === thisDeviceId()) {
    remember(null);
    const reg = await navigator.serviceWorker.getRegistration("/");
    await (await reg?.pushManager.getSubscription())?.unsubscribe();
  }
}

export async function setTurns(id: string, turns: boolean): Promise<PushDevice> {
  return apiSend<PushDevice>("PATCH", `/api/push/subscriptions/${encodeURIComponent(id)}`, { turns });
}

export async function testDevice(id: string): Promise<PushTestResult> {
  return apiSend<PushTestResult>("POST", "/api/push/test", { id });
}

function fromBase64url(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (s.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toBase64url(key: ArrayBuffer): string {
  let bin = "";
  for (const b of new Uint8Array(key)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
