import type { BrowserContext, CDPSession, Page, Worker } from "@playwright/test";

export interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  actions: string[];
}

/**
 * The console's service worker (public/sw.js) in Chromium, driven as a push service and a person
 * would: pushes delivered through the DevTools protocol (`ServiceWorker.deliverPushMessage`), the
 * notifications read from the registration, a notification's action run by the worker's own click
 * handler.
 */
export class PushWorker {
  private constructor(
    private readonly page: Page,
    private readonly cdp: CDPSession,
    private readonly registrationId: string,
    private readonly worker: Worker,
  ) {}

  /** Registers /sw.js from `page` (on the console's origin) and waits until it is active. */
  static async register(context: BrowserContext, page: Page): Promise<PushWorker> {
    const cdp = await context.newCDPSession(page);
    const origin = new URL(page.url()).origin;
    const registered = new Promise<string>((resolve) => {
      cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => {
        for (const r of e.registrations) if (r.scopeURL.startsWith(origin) && !r.isDeleted) resolve(r.registrationId);
      });
    });
    await cdp.send("ServiceWorker.enable");
    const workerSeen = context.serviceWorkers()[0] ?? context.waitForEvent("serviceworker");
    await page.evaluate(async () => {
      await navigator.serviceWorker.register("/sw.js", { scope: "/" });
      await navigator.serviceWorker.ready;
    });
    return new PushWorker(page, cdp, await registered, await workerSeen);
  }

  /** Delivers a push's (decrypted) data to the worker, as the browser does when its push service hands one over. */
  async deliver(data: string): Promise<void> {
    await this.cdp.send("ServiceWorker.deliverPushMessage", {
      origin: new URL(this.page.url()).origin,
      registrationId: this.registrationId,
      data,
    });
  }

  async notifications(tag?: string): Promise<ShownNotification[]> {
    return this.page.evaluate(async (t) => {
      const reg = await navigator.serviceWorker.ready;
      const list = await reg.getNotifications(t ? { tag: t } : undefined);
      return list.map((n) => ({
        title: n.title,
        body: n.body,
        tag: n.tag,
        actions: ((n as Notification & { actions?: { action: string }[] }).actions ?? []).map((a) => a.action),
      }));
    }, tag);
  }

  /** Runs the worker's click handler for the notification with `tag`, as a press of `action` does. */
  async press(tag: string, action: string): Promise<void> {
    await this.worker.evaluate(
      async ([t, a]) => {
        const g = self as unknown as {
          registration: ServiceWorkerRegistration;
          onNotificationClick(n: Notification, action: string): Promise<void>;
        };
        const [n] = await g.registration.getNotifications({ tag: t });
        if (!n) throw new Error(`no notification with tag ${t}`);
        await g.onNotificationClick(n, a);
      },
      [tag, action] as const,
    );
  }
}
