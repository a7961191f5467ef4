/**
 * Web Push end to end (docs/push.md): the built console sends to the tests' own push service
 * (testkit/push-service.ts: HTTPS on loopback, its certificate trusted by the console through
 * NODE_EXTRA_CA_CERTS; it verifies the VAPID JWT and decrypts each message with the subscription's
 * private key), and the real service worker (public/sw.js) in Chromium gets those payloads through
 * the DevTools protocol, shows the notification, closes it on the resolution push, and answers a
 * permission from "Allow once" with the browser's cookie. The backend is the fake Opal whose bash
 * tool asks first (`client/confirm`).
 */
import { test as base, type BrowserContext, expect, type Page } from "@playwright/test";
import { startPushService, type PushService, type ReceivedPush, type TestSubscription } from "../testkit/push-service";
import { CONFIRM_ID, type OpalStack, startOpalStack, stopOpalStack } from "../testkit/fake-opal-stack";
import { Interrupts } from "./pages/interrupts";
import { PushWorker } from "./pages/push-worker";
import { SessionPage } from "./pages/session-page";

type PushFixture = { svc: PushService; stack: OpalStack; device: TestSubscription };

const test = base.extend<object, { push: PushFixture }>({
  push: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern; it has none
    async ({}, use) => {
      const svc = await startPushService();
      const stack = await startOpalStack({
        env: { NODE_EXTRA_CA_CERTS: svc.caFile, SWITCHBOARD_PUSH_SERVICES: svc.host },
      });
      // The endpoint Chromium would make is Google's: a device of the tests' push service stands in for it.
      const device = svc.subscribe();
      const r = await fetch(`${stack.url}/api/push/subscriptions`, {
        method: "POST",
        headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
        body: JSON.stringify({ endpoint: device.endpoint, keys: device.keys, expirationTime: null, label: "e2e" }),
      });
      if (r.status !== 201) throw new Error(`subscribing failed: ${r.status} ${await r.text()}`);
      await use({ svc, stack, device });
      await stopOpalStack(stack);
      await svc.stop();
    },
    { scope: "worker", timeout: 180_000 },
  ],
  context: async ({ context, push }, use) => {
    await context.addCookies([
      { name: "sb_session", value: push.stack.sessionCookie, url: push.stack.url, httpOnly: true, sameSite: "Strict" },
    ]);
    await context.grantPermissions(["notifications"], { origin: push.stack.url });
    await use(context);
  },
  baseURL: async ({ push }, use) => {
    await use(push.stack.url);
  },
});

type Payload = { kind: string; tag: string; interruptId?: string; title: string; body: string; actions?: string[] };
const payloadOf = (r: ReceivedPush) => JSON.parse(r.payload ?? "{}") as Payload;

async function createSession(stack: OpalStack, title: string): Promise<string> {
  const r = await fetch(`${stack.url}/api/backends/${CONFIRM_ID}/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  expect(r.status).toBe(201);
  return ((await r.json()) as { id: string }).id;
}

/**
 * How the permission tests start: a session whose turn asks to run `echo <marker>` (then says
 * `reply`), opened with the push worker registered, and the push that raised the permission.
 */
async function raisePermission(page: Page, context: BrowserContext, push: PushFixture, marker: string, reply: string) {
  const { svc, stack, device } = push;
  stack.model.enqueue({ toolCalls: [{ name: "bash", arguments: { command: `echo ${marker}` } }] }, { text: reply });
  const id = await createSession(stack, marker);
  const sp = await SessionPage.open(page, CONFIRM_ID, id);
  const worker = await PushWorker.register(context, page);
  const before = svc.received(device.id).length;
  await sp.prompt("run it after asking");
  const raised = await nextPush(svc, device, "interrupt", before);
  return { sp, worker, before, raised, p: payloadOf(raised) };
}

/** The next push of `kind` the service accepted for the device after the first `after` it received. */
async function nextPush(
  svc: PushService,
  device: TestSubscription,
  kind: string,
  after: number,
): Promise<ReceivedPush> {
  let found: ReceivedPush | undefined;
  await expect
    .poll(
      () => {
        found = svc
          .received(device.id)
          .slice(after)
          .find((r) => r.status === 201 && payloadOf(r).kind === kind);
        return !!found;
      },
      { message: `a ${kind} push`, timeout: 30_000 },
    )
    .toBe(true);
  return found as ReceivedPush;
}

test.describe("web push", () => {
  test("a permission reaches the device as a notification with its actions; answered in a tab, the second push closes it", async ({
    page,
    context,
    push,
  }) => {
    const { svc, stack, device } = push;
    const { sp, worker, before, raised, p } = await raisePermission(
      page,
      context,
      push,
      "pushed-and-answered-in-tab",
      "Done.",
    );
    expect(raised.urgency).toBe("high");
    expect(raised.claims?.aud).toBe(svc.origin);
    expect(p.body).toContain("echo pushed-and-answered-in-tab");
    expect(raised.payload).not.toContain(stack.token);

    await worker.deliver(raised.payload ?? "");
    await expect
      .poll(() => worker.notifications(p.tag))
      .toEqual([{ title: p.title, body: p.body, tag: p.tag, actions: ["allow-once", "reject"] }]);

    // Answered in the tab: the resolution push carries the same Topic, and it closes the notification.
    await new Interrupts(page).permission().getByTestId("permission-allow-once").click();
    const resolved = await nextPush(svc, device, "resolved", before);
    expect(resolved.topic).toBe(raised.topic);
    await worker.deliver(resolved.payload ?? "");
    await expect.poll(() => worker.notifications(p.tag)).toEqual([]);
    await expect(sp.assistantText().last()).toHaveText("Done.");
  });

  test("Allow once on the notification answers the permission with the cookie; the open tab shows it resolved", async ({
    page,
    context,
    push,
  }) => {
    const { sp, worker, raised, p } = await raisePermission(
      page,
      context,
      push,
      "allowed-from-notification",
      "Ran from the notification.",
    );
    const card = new Interrupts(page).permission();
    await expect(card).toBeVisible();
    await worker.deliver(raised.payload ?? "");
    await expect.poll(async () => (await worker.notifications(p.tag)).length).toBe(1);

    await worker.press(p.tag, "allow-once");
    await expect(card).toHaveCount(0);
    await expect(sp.toolCards("bash").first()).toHaveAttribute("data-status", "completed");
    await expect(sp.assistantText().last()).toHaveText("Ran from the notification.");
    expect(await worker.notifications(p.tag)).toEqual([]);
  });

  test("an answer that fails says so on the notification", async ({ page, context }) => {
    await page.goto("/");
    const worker = await PushWorker.register(context, page);
    // A permission no backend holds: the console refuses the answer and the worker says why.
    const payload = {
      kind: "interrupt",
      tag: "stale-interrupt",
      title: "Permission: bash",
      body: "ls",
      backendId: CONFIRM_ID,
      sessionId: "no-such-session",
      interruptId: "no-such-interrupt",
      interruptKind: "permission",
      actions: ["allow-once", "reject"],
      url: "/",
    };
    await worker.deliver(JSON.stringify(payload));
    await expect.poll(async () => (await worker.notifications("stale-interrupt")).length).toBe(1);
    await worker.press("stale-interrupt", "allow-once");
    const [shown] = await worker.notifications("stale-interrupt");
    expect(shown?.body).toMatch(/^Not answered: /);
    expect(shown?.actions).toEqual([]);
  });
});
