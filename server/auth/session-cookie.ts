import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import { type Person, Role } from "@/lib/people";

/**
 * The console's login cookie. Its value is `v1.<id>.<expiry>.<signature>` for a token login, or
 * `v2.<id>.<expiry>.<person>.<signature>` for someone signed in with OIDC (`person`: base64url JSON
 * of who they are and their role, covered by the signature), never the token.
 */
export const SESSION_COOKIE = "sb_session";
export const SESSION_TTL_SECONDS = 30 * 24 * 3600;

const VERSION = "v1";
const PERSON_VERSION = "v2";

function sign(key: Buffer, payload: string): string {
  return createHmac("sha256", key).update(payload).digest("base64url");
}

export interface SessionValue {
  id: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Who signed in with OIDC, and their role; absent for a token login (an admin). */
  person?: SignedPerson;
}

export interface SignedPerson {
  user: Person;
  role: Role;
}

function encodePerson(p: SignedPerson): string {
  return Buffer.from(JSON.stringify({ i: p.user.id, n: p.user.name, e: p.user.email, r: p.role })).toString(
    "base64url",
  );
}

function decodePerson(raw: string): SignedPerson | undefined {
  try {
    const o = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Record<string, unknown>;
    const role = Role.safeParse(o.r);
    if (!role.success || typeof o.i !== "string" || typeof o.n !== "string" || typeof o.e !== "string")
      return undefined;
    return { user: { id: o.i, name: o.n, email: o.e }, role: role.data };
  } catch {
    return undefined;
  }
}

/** A new signed cookie value for a fresh login. */
export function mintSession(
  key: Buffer,
  nowMs = Date.now(),
  ttlSeconds = SESSION_TTL_SECONDS,
  person?: SignedPerson,
): { value: string; session: SessionValue } {
  const id = randomBytes(16).toString("base64url");
  const exp = Math.floor(nowMs / 1000) + ttlSeconds;
  const payload = person ? `${PERSON_VERSION}.${id}.${exp}.${encodePerson(person)}` : `${VERSION}.${id}.${exp}`;
  return { value: `${payload}.${sign(key, payload)}`, session: person ? { id, exp, person } : { id, exp } };
}

/** The session a cookie value stands for, or undefined when it is malformed, forged or expired. */
export function verifySession(key: Buffer, value: string | undefined, nowMs = Date.now()): SessionValue | undefined {
  if (!value || value.length > 3000) return undefined;
  const parts = value.split(".");
  const v2 = parts.length === 5 && parts[0] === PERSON_VERSION;
  if (!v2 && (parts.length !== 4 || parts[0] !== VERSION || value.length > 200)) return undefined;
  const [, id, expRaw] = parts as [string, string, string];
  const sig = parts[parts.length - 1] as string;
  const personRaw = v2 ? (parts[3] as string) : undefined;
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(id) || !/^\d{1,12}$/.test(expRaw) || !/^[A-Za-z0-9_-]{43}$/.test(sig))
    return undefined;
  if (personRaw !== undefined && !/^[A-Za-z0-9_-]{1,2800}$/.test(personRaw)) return undefined;
  const payload = parts.slice(0, -1).join(".");
  const expected = Buffer.from(sign(key, payload), "base64url");
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const exp = Number(expRaw);
  if (exp * 1000 <= nowMs) return undefined;
  if (personRaw === undefined) return { id, exp };
  const person = decodePerson(personRaw);
  return person ? { id, exp, person } : undefined;
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
