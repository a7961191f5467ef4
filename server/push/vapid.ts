import "server-only";
import webpush from "web-push";
import { z } from "zod";
import type { LiveStore } from "../store/store";

/**
 * The console's VAPID key pair (RFC 8292), generated at first use and kept in the store as a sealed
 * setting (`push-vapid`, server/backends/stored-secrets.ts): in replica mode every replica reads the
 * same row, so they all sign with one key. `SWITCHBOARD_VAPID_SUBJECT` is the contact a push service
 * may write to (`mailto:` or `https:`).
 */
export const VAPID_KEY = "push-vapid";
export const VAPID_SUBJECT_VAR = "SWITCHBOARD_VAPID_SUBJECT";
const DEFAULT_SUBJECT = "mailto:switchboard@localhost";

const Keys = z.object({ publicKey: z.string().min(80), privateKey: z.string().min(40) });
export type VapidKeys = z.infer<typeof Keys>;

export function vapidKeys(store: LiveStore): VapidKeys {
  const stored = store.getMeta(VAPID_KEY);
  if (stored) {
    try {
      const r = Keys.safeParse(JSON.parse(stored));
      if (r.success) return r.data;
    } catch {}
  }
  const fresh = webpush.generateVAPIDKeys();
  store.setMeta(VAPID_KEY, JSON.stringify(fresh));
  return { publicKey: fresh.publicKey, privateKey: fresh.privateKey };
}

/** The VAPID `sub`: the variable when it is a `mailto:` or `https:` URL, else a placeholder. */
export function vapidSubject(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const v = env[VAPID_SUBJECT_VAR]?.trim();
  return v && /^(mailto:|https:\/\/)\S+$/.test(v) ? v : DEFAULT_SUBJECT;
}
