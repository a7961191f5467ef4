import "server-only";
import { createHash } from "node:crypto";

/**
 * A client key (an address, or whatever a request named) as a Redis key part of fixed size: 32 hex
 * characters of its SHA-256. Anonymous clients choose what they send, so nothing they send becomes
 * a Redis key or member as it is.
 */
export function hashedKey(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 32);
}
