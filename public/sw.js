// Switchboard's service worker (docs/push.md). It shows the console's Web Push notifications and
// answers a permission from the notification's "Allow once" / "Reject" through the console's API
// with the browser's cookie, without opening a window. It caches nothing: no fetch handler, so API
// answers and session content never land in a cache.

const ACTION_TITLES = { "allow-once": "Allow once", reject: "Reject" };
const DECISIONS = { "allow-once": "allow_once", reject: "reject" };

self.addEventListener("install", () => {
  self.skipWaiting();
});
self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

function readPayload(data) {
  if (!data) return null;
  try {
    const p = data.json();
    return p && typeof p === "object" && typeof p.tag === "string" && typeof p.title === "string" ? p : null;
  } catch {
    return null;
  }
}

/** Shows (or, for `resolved`, closes) the notification a push names. */
async function onPush(p) {
  if (!p) return;
  if (p.kind === "resolved") {
    for (const n of await self.registration.getNotifications({ tag: p.tag })) n.close();
    return;
  }
  const actions = Array.isArray(p.actions)
    ? p.actions.filter((a) => ACTION_TITLES[a]).map((a) => ({ action: a, title: ACTION_TITLES[a] }))
    : [];
  await self.registration.showNotification(p.title, {
    body: typeof p.body === "string" ? p.body : "",
    tag: p.tag,
    data: p,
    actions,
    icon: "/icons/icon-192.png",
    badge: "/icons/icon-192.png",
    renotify: p.kind === "interrupt",
    requireInteraction: p.kind === "interrupt",
  });
}

self.addEventListener("push", (event) => {
  event.waitUntil(onPush(readPayload(event.data)));
});

const enc = encodeURIComponent;

/** A same-origin path to open: the payload's, else the console's start. */
function targetUrl(p) {
  const u = typeof p.url === "string" && p.url.startsWith("/") && !p.url.startsWith("//") ? p.url : "/";
  return new URL(u, self.location.origin).href;
}

async function openUrl(p) {
  const url = targetUrl(p);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const same =
    windows.find((w) => w.url === url) ?? windows.find((w) => new URL(w.url).origin === self.location.origin);
  if (same) {
    if (same.url !== url && "navigate" in same) await same.navigate(url).catch(() => undefined);
    return same.focus();
  }
  return self.clients.openWindow(url);
}

/** Replaces the notification with one that says the answer did not go through; a click opens the session. */
function failed(p, why) {
  return self.registration.showNotification(p.title, {
    body: `Not answered: ${why}`,
    tag: p.tag,
    data: { ...p, actions: [], kind: "failed" },
    icon: "/icons/icon-192.png",
    requireInteraction: true,
  });
}

/** Answers the permission behind a notification ("Allow once" / "Reject"); true when the console took it. */
async function answer(p, action) {
  const url = `/api/backends/${enc(p.backendId)}/sessions/${enc(p.sessionId)}/interrupts/${enc(p.interruptId)}`;
  let res;
  try {
    res = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: DECISIONS[action] }),
    });
  } catch {
    await failed(p, "the console could not be reached");
    return false;
  }
  if (res.ok) return true;
  let why = `the console answered ${res.status}`;
  if (res.status === 401) why = "the login has expired; open the console to log in";
  else {
    const body = await res.json().catch(() => null);
    if (typeof body?.error?.message === "string") why = body.error.message.slice(0, 200);
  }
  await failed(p, why);
  return false;
}

/** A click on the notification or on one of its actions. */
async function onNotificationClick(notification, action) {
  const p = notification.data || {};
  notification.close();
  if (DECISIONS[action] && p.kind === "interrupt" && p.interruptId && p.backendId && p.sessionId) {
    await answer(p, action);
    return;
  }
  await openUrl(p);
}

self.addEventListener("notificationclick", (event) => {
  event.waitUntil(onNotificationClick(event.notification, event.action));
});
