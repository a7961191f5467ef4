import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { PersonRef } from "@/lib/model";
import { MAX_PUSH_SUBSCRIPTIONS, type PushDevice, type PushSubscriptionBody } from "@/lib/push-api";
import { ApiError } from "../errors";
import type { LiveStore } from "../store/store";
import { endpointRefusal, pushServices } from "./allow-list";

/**
 * The devices to push to, one settings row each (`push-sub:<id>`) in the store, so every replica
 * sends to the same list. The row is sealed at rest with the console's other secrets
 * (server/backends/stored-secrets.ts); its keys never leave the server.
 */
export const SUBSCRIPTION_PREFIX = "push-sub:";

const Stored = z.object({
  id: z.string(),
  endpoint: z.string(),
  p256dh: z.string(),
  auth: z.string(),
  label: z.string(),
  createdAt: z.number(),
  lastSentAt: z.number().nullable(),
  lastError: z.string().nullable(),
  turns: z.boolean(),
  /** Who subscribed it; absent for a device from before people signed in (the console token's). */
  owner: PersonRef.optional(),
});
export type StoredPushSubscription = z.infer<typeof Stored>;

function parse(value: string): StoredPushSubscription | undefined {
  try {
    const r = Stored.safeParse(JSON.parse(value));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

export function publicDevice(s: StoredPushSubscription): PushDevice {
  let service = "";
  try {
    service = new URL(s.endpoint).host;
  } catch {}
  return {
    id: s.id,
    label: s.label,
    service,
    createdAt: s.createdAt,
    lastSentAt: s.lastSentAt,
    lastError: s.lastError,
    turns: s.turns,
    ...(s.owner ? { owner: s.owner } : {}),
  };
}

/**
 * Who is asking (docs/push.md, "Whose devices"): a person sees, changes and removes only the
 * devices they subscribed; the console token sees every device.
 */
export type PushViewer = { all: true } | { all: false; person: PersonRef };

function mine(viewer: PushViewer, s: StoredPushSubscription): boolean {
  return viewer.all || s.owner?.id === viewer.person.id;
}

export class PushSubscriptions {
  constructor(
    private readonly store: LiveStore,
    private readonly services = pushServices(),
  ) {}

  /** Every subscription with its keys (for sending), oldest first. */
  all(): StoredPushSubscription[] {
    return this.store
      .listMeta(SUBSCRIPTION_PREFIX)
      .flatMap(([, v]) => parse(v) ?? [])
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  get(id: string): StoredPushSubscription | undefined {
    const v = this.store.getMeta(SUBSCRIPTION_PREFIX + id);
    return v === undefined ? undefined : parse(v);
  }

  /** A device the viewer may see (404 otherwise: someone else's device is not confirmed to exist). */
  own(viewer: PushViewer, id: string): StoredPushSubscription {
    const s = this.get(id);
    if (!s || !mine(viewer, s)) throw ApiError.notFound("No such push subscription");
    return s;
  }

  list(viewer: PushViewer = { all: true }): PushDevice[] {
    return this.all()
      .filter((s) => mine(viewer, s))
      .map(publicDevice);
  }

  /**
   * Adds a device (or renews the one with the same endpoint, keeping its id). 400 with a sentence for
   * an endpoint off the allow-list or one too many.
   */
  add(body: PushSubscriptionBody, now = Date.now(), owner?: PersonRef): { id: string; created: boolean } {
    const refusal = endpointRefusal(body.endpoint, this.services);
    if (refusal) throw ApiError.badRequest(refusal);
    const all = this.all();
    const same = all.find((s) => s.endpoint === body.endpoint);
    if (!same && all.length >= MAX_PUSH_SUBSCRIPTIONS)
      throw ApiError.badRequest(
        `This console pushes to at most ${MAX_PUSH_SUBSCRIPTIONS} devices: remove one in Settings first`,
      );
    const row: StoredPushSubscription = {
      id: same?.id ?? randomUUID(),
      endpoint: body.endpoint,
      p256dh: body.keys.p256dh,
      auth: body.keys.auth,
      label: body.label || same?.label || "This device",
      createdAt: same?.createdAt ?? now,
      lastSentAt: same?.lastSentAt ?? null,
      lastError: null,
      turns: body.turns ?? same?.turns ?? true,
      // A browser subscribed again by someone else is theirs now: it is the same device, signed in anew.
      ...(owner ? { owner } : {}),
    };
    this.write(row);
    return { id: row.id, created: !same };
  }

  update(
    id: string,
    patch: { turns?: boolean | undefined; label?: string | undefined },
    viewer: PushViewer = { all: true },
  ): PushDevice {
    const s = this.own(viewer, id);
    const row = {
      ...s,
      ...(patch.turns !== undefined ? { turns: patch.turns } : {}),
      ...(patch.label ? { label: patch.label } : {}),
    };
    this.write(row);
    return publicDevice(row);
  }

  /**
   * Records a send's outcome (the settings list shows it). A success within a minute of the last one
   * is not written again: each write is a change every replica reads back.
   */
  sent(id: string, at: number, error: string | null): void {
    const s = this.get(id);
    if (!s) return;
    if (!error && !s.lastError && s.lastSentAt !== null && at - s.lastSentAt < 60_000) return;
    this.write({ ...s, lastSentAt: error ? s.lastSentAt : at, lastError: error });
  }

  remove(id: string, viewer: PushViewer = { all: true }): boolean {
    const s = this.get(id);
    if (!s || !mine(viewer, s)) return false;
    return this.store.deleteMeta(SUBSCRIPTION_PREFIX + id);
  }

  private write(row: StoredPushSubscription): void {
    this.store.setMeta(SUBSCRIPTION_PREFIX + row.id, JSON.stringify(row));
  }
}
