import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";

/** The console's login cookie. Its value is `v1.<id>.<expiry>.<signature>`, never the token. */
export const SESSION_COOKIE = "sb_session";
export const SESSION_TTL_SECONDS = 30 * 24 * 3600;

const VERSION = "v1";

function sign(key: Buffer, payload: string): string {
  return createHmac("sha256", key).update(payload).digest("base64url");
}

export interface SessionValue {
  id: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/** A new signed cookie value for a fresh login. */
export function mintSession(
  key: Buffer,
  nowMs = Date.now(),
  ttlSeconds = SESSION_TTL_SECONDS,
): { value: string; session: SessionValue } {
  const id = randomBytes(16).toString("base64url");
  const exp = Math.floor(nowMs / 1000) + ttlSeconds;
  const payload = `${VERSION}.${id}.${exp}`;
  return { value: `${payload}.${sign(key, payload)}`, session: { id, exp } };
}

/** The session a cookie value stands for, or undefined when it is malformed, forged or expired. */
export function verifySession(key: Buffer, value: string | undefined, nowMs = Date.now()): SessionValue | undefined {
  if (!value || value.length > 200) return undefined;
  const parts = value.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
  const [, id, expRaw, sig] = parts as [string, string, string, string];
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(id) || !/^\d{1,12}$/.test(expRaw) || !/^[A-Za-z0-9_-]{43}$/.test(sig))
    return undefined;
  const expected = Buffer.from(sign(key, `${VERSION}.${id}.${expRaw}`), "base64url");
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const exp = Number(expRaw);
  if (exp * 1000 <= nowMs) return undefined;
  return { id, exp };
}

/**
 * Sessions ended by logout before their expiry. Kept in memory (shared by the proxy and the route
 * handlers through globalThis) and in a small JSON file in the data directory so that a logout
 * survives a restart. Entries are dropped once the cookie would have expired anyway.
 */
export class RevocationList {
  private ids = new Map<string, number>();
  private loaded = false;

  constructor(private file?: string) {}

  revoke(s: SessionValue, nowMs = Date.now()): void {
    this.load();
    this.ids.set(s.id, s.exp);
    this.prune(nowMs);
    this.save();
  }

  isRevoked(id: string): boolean {
    this.load();
    return this.ids.has(id);
  }

  private prune(nowMs: number) {
    for (const [id, exp] of this.ids) if (exp * 1000 <= nowMs) this.ids.delete(id);
  }

  private load() {
    if (this.loaded) return;
    this.loaded = true;
    if (!this.file) return;
    try {
      const raw = JSON.parse(fs.readFileSync(this.file, "utf8")) as unknown;
      if (raw && typeof raw === "object") {
        for (const [id, exp] of Object.entries(raw as Record<string, unknown>))
          if (typeof exp === "number") this.ids.set(id, exp);
      }
    } catch {
      // none yet
    }
    this.prune(Date.now());
  }

  private save() {
    if (!this.file) return;
    try {
      fs.writeFileSync(this.file, JSON.stringify(Object.fromEntries(this.ids)), { mode: 0o600 });
    } catch {
      // best effort: the in-memory list still applies
    }
  }
}
