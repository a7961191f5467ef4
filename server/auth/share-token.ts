import "server-only";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Share tokens: 256 random bits, base64url (43 characters). Only their SHA-256 is stored, so the
 * database alone cannot open a share; the token is shown once, when the share is created.
 */
export const SHARE_TOKEN_BYTES = 32;
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export function newShareToken(): string {
  return randomBytes(SHARE_TOKEN_BYTES).toString("base64url");
}

/** A share's id (for management routes): random, unrelated to its token. */
export function newShareId(): string {
  return `shr_${randomBytes(12).toString("base64url")}`;
}

export function isWellFormedShareToken(token: string): boolean {
  return TOKEN_RE.test(token);
}

/** Hex SHA-256 of the token: what the store keeps and looks up. */
export function hashShareToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Constant-time comparison of a token with a stored hash. */
export function tokenMatches(token: string, hash: string): boolean {
  const a = Buffer.from(hashShareToken(token), "hex");
  const b = Buffer.from(hash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
