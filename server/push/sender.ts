import "server-only";
import { createHash } from "node:crypto";
import type https from "node:https";
import webpush, { WebPushError } from "web-push";
import type { PushPayload } from "@/lib/push-api";
import { describeError } from "../errors";
import { log } from "../log";
import type { PushSubscriptions, StoredPushSubscription } from "./subscriptions";
import type { VapidKeys } from "./vapid";

/** Push services accept 4096 bytes of encrypted body; aes128gcm adds 86 bytes and a padding byte. */
export const MAX_PAYLOAD_BYTES = 3_800;

export interface PushMessage {
  payload: PushPayload;
  urgency: "high" | "normal";
  /** Seconds the push service keeps it for an offline device; retries stay within it. */
  ttl: number;
  /** RFC 8030 `Topic`: a later push with the same topic replaces one not yet delivered. */
  topic?: string;
}

export interface SendOutcome {
  ok: boolean;
  status: number | null;
  message: string;
}

/** A `Topic` for a name: at most 32 characters of the URL-safe base64 alphabet (RFC 8030 §5.4). */
export function topicFor(name: string): string {
  return createHash("sha256").update(name).digest("base64url").slice(0, 32);
}

/** The payload as JSON, its body shortened until it fits the push services' limit. */
export function encodePayload(payload: PushPayload): string {
  let p = payload;
  let text = JSON.stringify(p);
  while (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES && p.body.length > 0) {
    const cut = Math.max(0, Math.floor(p.body.length * 0.8) - 1);
    p = { ...p, body: cut ? `${p.body.slice(0, cut)}…` : "" };
    text = JSON.stringify(p);
  }
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) text = JSON.stringify({ ...p, title: p.title.slice(0, 100) });
  return text;
}

export interface PushSenderOptions {
  subscriptions: PushSubscriptions;
  keys: () => VapidKeys;
  subject: string;
  /** The TLS agent (tests trust their own push service through it; else Node's, with NODE_EXTRA_CA_CERTS). */
  agent?: https.Agent;
  /** First retry delay (doubles each time); the test shortens it. */
  retryBaseMs?: number;
  maxAttempts?: number;
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends Web Push messages with `web-push` (RFC 8291 encryption, RFC 8292 VAPID). A push service
 * answering 404 or 410 has forgotten the device: its subscription is removed. 429 and 5xx are
 * retried with backoff (or the service's `Retry-After`) while the message's TTL lasts.
 */
export class PushSender {
  constructor(private readonly opts: PushSenderOptions) {}

  /** Sends to every subscription `filter` keeps; failures are logged, never thrown. */
  async sendAll(msg: PushMessage, filter: (s: StoredPushSubscription) => boolean = () => true): Promise<void> {
    const subs = this.opts.subscriptions.all().filter(filter);
    await Promise.all(subs.map((s) => this.send(s, msg)));
  }

  async send(sub: StoredPushSubscription, msg: PushMessage): Promise<SendOutcome> {
    const body = encodePayload(msg.payload);
    const started = Date.now();
    const maxAttempts = this.opts.maxAttempts ?? 5;
    let delay = this.opts.retryBaseMs ?? 1_000;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(sub, msg, body);
      if (outcome.ok) {
        this.opts.subscriptions.sent(sub.id, Date.now(), null);
        return outcome;
      }
      const status = outcome.status;
      if (status === 404 || status === 410) {
        this.opts.subscriptions.remove(sub.id);
        log.info("a push service forgot a device; its subscription is removed", { id: sub.id, status });
        return { ...outcome, message: "The push service no longer knows this device: it was removed" };
      }
      const retryable = status === null || status === 429 || status >= 500;
      const wait = Math.max(delay, outcome.retryAfterMs ?? 0);
      if (!retryable || attempt >= maxAttempts || Date.now() - started + wait > msg.ttl * 1000) {
        this.opts.subscriptions.sent(sub.id, Date.now(), outcome.message);
        log.warn("a push was not delivered", { id: sub.id, status, error: outcome.message });
        return outcome;
      }
      await sleep(wait);
      delay *= 2;
    }
  }

  private async attempt(
    sub: StoredPushSubscription,
    msg: PushMessage,
    body: string,
  ): Promise<SendOutcome & { retryAfterMs?: number }> {
    const keys = this.opts.keys();
    try {
      const res = await webpush.sendNotification(
        { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
        body,
        {
          vapidDetails: { subject: this.opts.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
          TTL: msg.ttl,
          urgency: msg.urgency,
          ...(msg.topic ? { topic: msg.topic } : {}),
          contentEncoding: "aes128gcm",
          timeout: this.opts.timeoutMs ?? 15_000,
          ...(this.opts.agent ? { agent: this.opts.agent } : {}),
        },
      );
      return { ok: true, status: res.statusCode, message: "Sent" };
    } catch (err) {
      if (err instanceof WebPushError) {
        const ra = Number(err.headers?.["retry-after"]);
        return {
          ok: false,
          status: err.statusCode,
          message: `The push service answered ${err.statusCode}`,
          ...(Number.isFinite(ra) && ra > 0 ? { retryAfterMs: Math.min(ra, 3600) * 1000 } : {}),
        };
      }
      return { ok: false, status: null, message: `The push service could not be reached: ${describeError(err)}` };
    }
  }
}
