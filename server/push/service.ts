import "server-only";
import type https from "node:https";
import type { PushDevice, PushPayload, PushTestResult } from "@/lib/push-api";
import { knownSecrets } from "../redaction/redact";
import { Redactor } from "../redaction/redactor";
import type { Hub } from "../hub/hub";
import type { LiveStore } from "../store/store";
import { pushServices } from "./allow-list";
import { PushNotifier } from "./notifier";
import { PushSender, topicFor } from "./sender";
import { type PushViewer, PushSubscriptions } from "./subscriptions";
import { vapidKeys, vapidSubject } from "./vapid";

/** Web Push as the routes and the hub see it (docs/push.md). */
export class PushService {
  readonly subscriptions: PushSubscriptions;
  readonly sender: PushSender;
  readonly notifier: PushNotifier;

  constructor(
    private readonly store: LiveStore,
    hub: Pick<Hub, "watched">,
    opts: { agent?: https.Agent; retryBaseMs?: number; env?: Readonly<Record<string, string | undefined>> } = {},
  ) {
    this.subscriptions = new PushSubscriptions(store, pushServices(opts.env));
    this.sender = new PushSender({
      subscriptions: this.subscriptions,
      keys: () => vapidKeys(store),
      subject: vapidSubject(opts.env),
      ...(opts.agent ? { agent: opts.agent } : {}),
      ...(opts.retryBaseMs !== undefined ? { retryBaseMs: opts.retryBaseMs } : {}),
    });
    this.notifier = new PushNotifier({
      channel: this.sender,
      watched: (b, s) => hub.watched(b, s),
      redact: (p) => this.redact(p),
      hasSubscribers: () => store.listMeta("push-sub:").length > 0,
    });
  }

  /** The application server key the browser subscribes with (base64url, 65-byte uncompressed P-256). */
  publicKey(): string {
    return vapidKeys(this.store).publicKey;
  }

  list(viewer: PushViewer = { all: true }): PushDevice[] {
    return this.subscriptions.list(viewer);
  }

  /** Like a share: the console's secrets, the built-in rules and the user's patterns are removed. */
  redact(p: PushPayload): PushPayload {
    return new Redactor(this.store.listRedactionPatterns(), knownSecrets()).value(p) as PushPayload;
  }

  async test(id: string, viewer: PushViewer = { all: true }): Promise<PushTestResult> {
    const sub = this.subscriptions.own(viewer, id);
    const tag = topicFor(`test\u0000${id}`);
    const outcome = await this.sender.send(sub, {
      payload: this.redact({ kind: "test", tag, title: "Switchboard", body: "Pushes reach this device.", url: "/" }),
      urgency: "normal",
      ttl: 60,
      topic: tag,
    });
    return outcome;
  }
}
