import "server-only";
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { ACTING_PERSON_HEADER } from "../auth/acting-person";
import { PEER_SIGNATURE_HEADER } from "../http";
import { log } from "../log";

/**
 * How replicas prove a request comes from one of them (docs/security.md, "Replicas"): every request
 * one replica sends another carries an HMAC-SHA256, under the replicas' own key
 * (`SWITCHBOARD_REPLICA_KEY`, never the console token), over the method, the path and query, the
 * receiving replica's origin, the sender's id, a timestamp, a nonce and the SHA-256 of the body.
 * The receiver accepts it within `VALIDITY_MS` of its own clock, and each nonce once (kept in memory
 * for as long as it could be valid: a replayed request is refused; a nonce is per receiver, and the
 * origin in the signature stops one replica's request from being replayed to another). Nothing in it
 * is a credential a browser could use: it authorises that one request, once, on that one replica.
 */

export const SIGNATURE_HEADERS = {
  time: "x-switchboard-replica-time",
  nonce: "x-switchboard-replica-nonce",
  body: "x-switchboard-replica-body",
  signature: PEER_SIGNATURE_HEADER,
} as const;
/** The sending replica's id (also what stops a forwarded request from being forwarded again). */
export const FORWARDED_BY = "x-switchboard-forwarded-by";

/** How far a signed request's timestamp may be from the receiver's clock, either way. */
export const VALIDITY_MS = 30_000;
/** Nonces remembered at most (a receiver answering more signed requests per minute refuses the rest). */
const MAX_NONCES = 200_000;
/** The shortest key accepted, in bytes. */
export const MIN_KEY_BYTES = 32;

/** The replicas' keys: the first signs, every one verifies (two during a rotation). */
export type ReplicaKeys = readonly Buffer[];

/** The secrets `SWITCHBOARD_REPLICA_KEY` lists, as configured (to withhold from agents and redact). */
export function rawReplicaKeys(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * `SWITCHBOARD_REPLICA_KEY`: one key, or two separated by a comma during a rotation (the first
 * signs, both verify). Each at least `MIN_KEY_BYTES` bytes. Throws the reason.
 */
export function parseReplicaKeys(value: string | undefined): ReplicaKeys {
  const parts = rawReplicaKeys(value);
  if (!parts.length) throw new Error("is not set");
  if (parts.length > 2) throw new Error("holds at most two keys (the signing one, then the previous one)");
  for (const p of parts)
    if (Buffer.byteLength(p, "utf8") < MIN_KEY_BYTES)
      throw new Error(`must be at least ${MIN_KEY_BYTES} bytes (for example: openssl rand -base64 48)`);
  // A key of its own for this use, derived from the configured secret.
  return parts.map((p) => createHmac("sha256", p).update("switchboard/replica-request/v1").digest());
}

export const sha256 = (body: Uint8Array | string): string => createHash("sha256").update(body).digest("base64url");
const EMPTY_BODY = sha256("");

/** The origin a replica is reached at (what a signature is addressed to). */
export function audienceOf(url: string | URL): string {
  return new URL(url).origin;
}

function canonical(p: {
  method: string;
  pathQuery: string;
  audience: string;
  from: string;
  time: string;
  nonce: string;
  body: string;
  /** The person a forwarded request acts for (its `x-switchboard-acting-person`), or "". */
  person: string;
}): string {
  return [
    "switchboard-replica-v1",
    p.method.toUpperCase(),
    p.pathQuery,
    p.audience,
    p.from,
    p.time,
    p.nonce,
    p.body,
    p.person,
  ].join("\n");
}

const mac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();

/**
 * The headers that sign one request to `url` (its path and query, its origin as the audience, its
 * body, and the person it acts for, so a replica's word on who did something cannot be altered).
 */
export function signRequest(
  keys: ReplicaKeys,
  from: string,
  method: string,
  url: URL,
  body?: Uint8Array | string,
  now = Date.now(),
  person = "",
): Record<string, string> {
  const key = keys[0];
  if (!key) throw new Error("no replica key");
  const time = String(now);
  const nonce = randomBytes(18).toString("base64url");
  const bodyHash = body === undefined || body.length === 0 ? EMPTY_BODY : sha256(body);
  const text = canonical({
    method,
    pathQuery: url.pathname + url.search,
    audience: audienceOf(url),
    from,
    time,
    nonce,
    body: bodyHash,
    person,
  });
  return {
    [FORWARDED_BY]: from,
    [SIGNATURE_HEADERS.time]: time,
    [SIGNATURE_HEADERS.nonce]: nonce,
    [SIGNATURE_HEADERS.body]: bodyHash,
    [SIGNATURE_HEADERS.signature]: mac(key, text).toString("base64url"),
  };
}

/** Does the request carry a replica signature at all (valid or not)? */
export function hasReplicaSignature(headers: Headers): boolean {
  return headers.has(SIGNATURE_HEADERS.signature);
}

export interface VerifiedClaims {
  from: string;
  nonce: string;
  /** The SHA-256 (base64url) the sender signed for the body. */
  bodyHash: string;
}

const NONCE = /^[A-Za-z0-9_-]{16,64}$/;
const FROM = /^[^\s:]{1,200}$/;
const HASH = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks a request's signature and timestamp (not its nonce, not its body: see `NonceLedger` and
 * `bodyMatches`): the claims when every header is well-formed, the timestamp within `VALIDITY_MS`,
 * and the HMAC equal (compared in constant time) under one of the keys; else undefined.
 */
export function verifySignature(
  keys: ReplicaKeys,
  audience: string,
  req: { method: string; pathQuery: string; headers: Headers },
  now = Date.now(),
): VerifiedClaims | undefined {
  const h = req.headers;
  const from = h.get(FORWARDED_BY) ?? "";
  const time = h.get(SIGNATURE_HEADERS.time) ?? "";
  const nonce = h.get(SIGNATURE_HEADERS.nonce) ?? "";
  const body = h.get(SIGNATURE_HEADERS.body) ?? "";
  const signature = h.get(SIGNATURE_HEADERS.signature) ?? "";
  if (!FROM.test(from) || !/^\d{1,16}$/.test(time) || !NONCE.test(nonce) || !HASH.test(body)) return undefined;
  if (Math.abs(now - Number(time)) > VALIDITY_MS) return undefined;
  let given: Buffer;
  try {
    given = Buffer.from(signature, "base64url");
  } catch {
    return undefined;
  }
  if (given.length !== 32) return undefined;
  const person = h.get(ACTING_PERSON_HEADER) ?? "";
  const text = canonical({ method: req.method, pathQuery: req.pathQuery, audience, from, time, nonce, body, person });
  let ok = false;
  for (const key of keys) if (timingSafeEqual(mac(key, text), given)) ok = true;
  return ok ? { from, nonce, bodyHash: body } : undefined;
}

/** Does the body read match the hash the sender signed? */
export function bodyMatches(claims: VerifiedClaims, body: Uint8Array): boolean {
  const actual = Buffer.from(body.length === 0 ? EMPTY_BODY : sha256(body));
  const signed = Buffer.from(claims.bodyHash);
  return actual.length === signed.length && timingSafeEqual(actual, signed);
}

/**
 * The nonces this replica has accepted, for as long as their request could be valid (twice
 * `VALIDITY_MS`, the timestamp's window either way). In memory: a nonce is checked by the replica
 * the request is addressed to, and the audience in the signature binds it to that one, so a shared
 * store is not needed; a restarted replica forgets them, but a request signed for it before its
 * restart is still refused after `VALIDITY_MS`. The proxy admits a request (`admit`), the route
 * then takes its nonce (`take`): a nonce is taken once; a request the proxy did not see (a public
 * path) is taken directly.
 */
export class NonceLedger {
  private seen = new Map<string, { state: "admitted" | "taken"; until: number }>();
  private full = false;
  private sweptAt = 0;

  private sweep(now: number) {
    this.sweptAt = now;
    for (const [k, v] of this.seen) if (v.until <= now) this.seen.delete(k);
  }

  private room(now: number): boolean {
    // Expired nonces go every `VALIDITY_MS`, or at once when the ledger is full.
    if (this.seen.size >= MAX_NONCES || now - this.sweptAt > VALIDITY_MS) this.sweep(now);
    if (this.seen.size < MAX_NONCES) {
      this.full = false;
      return true;
    }
    if (!this.full) log.warn("refusing replica requests: too many in the last minute", { nonces: this.seen.size });
    this.full = true;
    return false;
  }

  /** The proxy's check: a nonce never seen before (it is remembered as admitted). */
  admit(nonce: string, now = Date.now()): boolean {
    const e = this.seen.get(nonce);
    if (e && e.until > now) return false;
    if (!this.room(now)) return false;
    this.seen.set(nonce, { state: "admitted", until: now + 2 * VALIDITY_MS });
    return true;
  }

  /** The route's check: a nonce admitted by the proxy, or never seen; never one already taken. */
  take(nonce: string, now = Date.now()): boolean {
    const e = this.seen.get(nonce);
    if (e && e.until > now && e.state === "taken") return false;
    if (!e && !this.room(now)) return false;
    if (e && now - this.sweptAt > VALIDITY_MS) this.sweep(now);
    this.seen.set(nonce, { state: "taken", until: now + 2 * VALIDITY_MS });
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
