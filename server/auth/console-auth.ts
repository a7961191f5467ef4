import "server-only";
import path from "node:path";
import { ApiError } from "../errors";
import { bearerToken } from "./policy";
import { FixedWindowLimiter } from "./rate-limit";
import { registerSecret } from "./redact";
import {
  mintSession,
  RevocationList,
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
  verifySession,
  type SessionValue,
} from "./session-cookie";
import { dataDirOf, deriveCookieKey, resolveConsoleToken, safeEqual, type ConsoleToken } from "./token";

/** Failed logins allowed per client address, and over all addresses, per minute. */
export const LOGIN_LIMIT = { perKey: 10, total: 100, windowMs: 60_000 };

interface AuthState {
  token: ConsoleToken;
  key: Buffer;
  revoked: RevocationList;
  limiter: FixedWindowLimiter;
}

const g = globalThis as typeof globalThis & { __switchboardAuth?: AuthState };

/**
 * The console's login state, one per process on globalThis (the proxy and the route handlers are
 * separate bundles): the token, the cookie key derived from it, revoked sessions, the login limiter.
 */
export function consoleAuth(): AuthState {
  if (!g.__switchboardAuth) {
    const token = resolveConsoleToken();
    registerSecret(token.token);
    g.__switchboardAuth = {
      token,
      key: deriveCookieKey(token.token),
      revoked: new RevocationList(path.join(dataDirOf(), "revoked-sessions.json")),
      limiter: new FixedWindowLimiter(LOGIN_LIMIT),
    };
  }
  return g.__switchboardAuth;
}

/** The valid session a cookie value stands for (signed, unexpired, not logged out). */
export function sessionFromCookie(value: string | undefined): SessionValue | undefined {
  const a = consoleAuth();
  const s = verifySession(a.key, value);
  return s && !a.revoked.isRevoked(s.id) ? s : undefined;
}

/** How a request proves it may use the console, or undefined when it does not. */
export function authenticate(headers: Headers, cookieValue: string | undefined): "bearer" | "cookie" | undefined {
  const bearer = bearerToken(headers);
  if (bearer !== undefined) return safeEqual(bearer, consoleAuth().token.token) ? "bearer" : undefined;
  return sessionFromCookie(cookieValue) ? "cookie" : undefined;
}

/** The address a login attempt is counted against (the first X-Forwarded-For entry). */
export function clientAddress(headers: Headers): string {
  const xff = headers.get("x-forwarded-for");
  const first = xff?.split(",")[0]?.trim();
  return first ? first.slice(0, 100) : "unknown";
}

/**
 * Checks a presented token: 429 while the address (or everyone) is over the failed-login limit,
 * 401 when it is wrong, else a new signed session cookie value.
 */
export function login(presented: string, address: string): { cookieValue: string; maxAge: number } {
  const a = consoleAuth();
  const gate = a.limiter.check(address);
  if (!gate.allowed) {
    throw new ApiError("rate_limited", "Too many login attempts; try again later", { retryAfter: gate.retryAfter });
  }
  if (!safeEqual(presented, a.token.token)) {
    a.limiter.hit(address);
    throw new ApiError("unauthorized", "Wrong token");
  }
  return { cookieValue: mintSession(a.key).value, maxAge: SESSION_TTL_SECONDS };
}

/** Ends the session a cookie stands for (a copied cookie stops working too). */
export function logout(cookieValue: string | undefined): void {
  const a = consoleAuth();
  const s = verifySession(a.key, cookieValue);
  if (s) a.revoked.revoke(s);
}

/** `Set-Cookie` for a login (Secure when the console is reached over HTTPS). */
export function sessionCookie(value: string, opts: { secure: boolean; maxAge?: number }): string {
  const parts = [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${opts.maxAge ?? SESSION_TTL_SECONDS}`,
  ];
  if (opts.secure) parts.push("Secure");
  return parts.join("; ");
}

/** `Set-Cookie` that removes the login cookie. */
export function clearedSessionCookie(opts: { secure: boolean }): string {
  const parts = [
    `${SESSION_COOKIE}=`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    "Max-Age=0",
    "Expires=Thu, 01 Jan 1970 00:00:00 GMT",
  ];
  if (opts.secure) parts.push("Secure");
  return parts.join("; ");
}

/** One cookie's value from a `Cookie` header. */
export function readCookie(headers: Headers, name: string): string | undefined {
  const raw = headers.get("cookie");
  if (!raw) return undefined;
  for (const part of raw.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** Was this request made over HTTPS (directly or through a TLS-terminating reverse proxy)? */
export function isHttps(url: string, headers: Headers): boolean {
  const proto = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (proto) return proto === "https";
  return url.startsWith("https:");
}

export { SESSION_COOKIE };
