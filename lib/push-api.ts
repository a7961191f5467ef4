import { z } from "zod";

/*
 * Web Push (docs/push.md): the API's schemas and the payload the service worker reads. Isomorphic:
 * the routes validate with these, the settings panel and the service worker read the same shapes.
 */

/** At most this many devices (subscriptions) per console. */
export const MAX_PUSH_SUBSCRIPTIONS = 50;
/** A request body of these routes is never bigger than this. */
export const MAX_PUSH_BODY_BYTES = 8_192;

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, "must be base64url");

/** `POST /api/push/subscriptions`: the browser's `PushSubscription.toJSON()` plus an optional label. */
export const PushSubscriptionBody = z
  .object({
    endpoint: z.string().trim().min(1).max(2_000),
    expirationTime: z.number().nullable().optional(),
    keys: z.object({ p256dh: base64url(200), auth: base64url(100) }).strict(),
    label: z.string().trim().max(100).optional(),
    /** Push finished and failed turns to this device too (default on). */
    turns: z.boolean().optional(),
  })
  .strict();
export type PushSubscriptionBody = z.infer<typeof PushSubscriptionBody>;

/** One device as the API shows it: never its keys. */
export const PushDevice = z.object({
  id: z.string(),
  label: z.string(),
  /** The push service's host (fcm.googleapis.com, …). */
  service: z.string(),
  createdAt: z.number(),
  lastSentAt: z.number().nullable(),
  /** The last send's failure, if the last one failed. */
  lastError: z.string().nullable(),
  turns: z.boolean(),
  /** Whose device it is (docs/push.md, "Whose devices"); absent for one subscribed before people signed in. */
  owner: z.object({ id: z.string(), name: z.string() }).optional(),
});
export type PushDevice = z.infer<typeof PushDevice>;

export const PushDeviceList = z.object({ items: z.array(PushDevice) });
export type PushDeviceList = z.infer<typeof PushDeviceList>;

/** `PATCH /api/push/subscriptions/:id`. */
export const PushDevicePatch = z
  .object({ turns: z.boolean().optional(), label: z.string().trim().max(100).optional() })
  .strict();
export type PushDevicePatch = z.infer<typeof PushDevicePatch>;

/** `POST /api/push/test`. */
export const PushTestBody = z.object({ id: z.string().min(1).max(100) }).strict();
export type PushTestBody = z.infer<typeof PushTestBody>;

export const PushTestResult = z.object({ ok: z.boolean(), status: z.number().nullable(), message: z.string() });
export type PushTestResult = z.infer<typeof PushTestResult>;

export const PushKey = z.object({ publicKey: z.string() });
export type PushKey = z.infer<typeof PushKey>;

/**
 * What a push carries (encrypted), read by the service worker. `tag` names the notification: a
 * second push with the same tag replaces or (`resolved`) closes it.
 */
export const PushPayload = z.object({
  kind: z.enum(["interrupt", "resolved", "turn", "test"]),
  tag: z.string().max(64),
  title: z.string().max(200),
  body: z.string().max(2_000),
  backendId: z.string().max(200).optional(),
  sessionId: z.string().max(200).optional(),
  interruptId: z.string().max(200).optional(),
  interruptKind: z.enum(["permission", "question", "input"]).optional(),
  /** A permission whose options allow the notification's "Allow once" and "Reject". */
  actions: z
    .array(z.enum(["allow-once", "reject"]))
    .max(2)
    .optional(),
  /** Same-origin path the click opens. */
  url: z.string().max(1_000).optional(),
});
export type PushPayload = z.infer<typeof PushPayload>;
