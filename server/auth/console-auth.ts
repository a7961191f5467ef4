import "server-only";
import path from "node:path";
import type { Me } from "@/lib/people";
import { ApiError } from "../errors";
import { bearerToken } from "./policy";
import { FixedWindowLimiter, type LimitDecision, SlowLane } from "./rate-limit";
import { registerSecret } from "../redaction/redact";
import {
  mintSession,
  RevocationList,
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
  verifySession,
  type SessionValue,
  type SignedPerson,
} from "./session-cookie";
import { dataDirOf, deriveCookieKey, resolveConsoleToken, safeEqual, type ConsoleToken } from "./token";

/** Failed logins allowed per client address, and over all addresses, per minute. */
export const LOGIN_LIMIT = { perKey: 10, total: 100, windowMs: 60_000 };

/**
 * Replica mode's shared login state (docs/architecture.md, "Replicas"): logouts every replica sees
 * within a second (a `ReplicatedSet` of session ids, read synchronously on every request) and the
 * failed-login counters kept in Redis, so attempts split across replicas are counted together.
 */
export interface SharedAuth {
  loggedOut: { has(id: string): boolean; add(id: string, until: number): Promise<void> };
  limiter: { check(key: string): Promise<LimitDecision>; hit(key: string): Promise<void> };
}

interface AuthState {
  token: ConsoleToken;
  key: Buffer;
  revoked: RevocationList;
  limiter: FixedWindowLimiter;
  /** Attempts while failed logins from every address are over the total (this replica's lane). */
  slowLane: SlowLane;
  shared?: SharedAuth;
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
      slowLane: new SlowLane(),
    };
  }
  return g.__switchboardAuth;
}

/** Replica mode: logouts and failed logins from now on are counted with the other replicas'. */
export function shareAuthState(shared: SharedAuth | undefined): void {
  consoleAuth().shared = shared;
}

/** The valid session a cookie value stands for (signed, unexpired, not logged out on any replica). */
export function sessionFromCookie(value: string | undefined): SessionValue | undefined {
  const a = consoleAuth();
  const s = verifySession(a.key, value);
  return s && !a.revoked.isRevoked(s.id) && !a.shared?.loggedOut.has(s.id) ? s : undefined;
}

/** How a request proves it may use the console, or undefined when it does not. */
export function authenticate(headers: Headers, cookieValue: string | undefined): "bearer" | "cookie" | undefined {
  const bearer = bearerToken(headers);
  if (bearer !== undefined) return safeEqual(bearer, consoleAuth().token.token) ? "bearer" : undefined;
  return sessionFromCookie(cookieValue) ? "cookie" : undefined;
}

/** Who the console token stands for: the admin who set the console up. */
export const TOKEN_PRINCIPAL: Me = {
  user: { id: "token", name: "Console token", email: "" },
  role: "admin",
  via: "token",
};

/**
 * Who a request comes from: the console token (a bearer token, or a cookie from a token login) is
 * the admin; an OIDC login's cookie carries the person and their role. Undefined when neither.
 */
export function principalOf(
  headers: Headers,
  cookieValue: string | undefined = readCookie(headers, SESSION_COOKIE),
): Me | undefined {
  const bearer = bearerToken(headers);
  if (bearer !== undefined) return safeEqual(bearer, consoleAuth().token.token) ? TOKEN_PRINCIPAL : undefined;
  const s = sessionFromCookie(cookieValue);
  if (!s) return undefined;
  return s.person ? { user: s.person.user, role: s.person.role, via: "oidc" } : TOKEN_PRINCIPAL;
}

/** A session cookie for someone the identity provider vouched for (server/auth/oidc.ts). */
export function personSession(person: SignedPerson): { cookieValue: string; maxAge: number; session: SessionValue } {
  const { value, session } = mintSession(consoleAuth().key, Date.now(), SESSION_TTL_SECONDS, person);
  return { cookieValue: value, maxAge: SESSION_TTL_SECONDS, session };
}

/**
 * Checks a presented token: 429 while this client address is over its failed-login limit (whatever
 * the token: that bound is what caps guessing, per address); while failed logins from every
 * address together are over theirs, the attempt waits its turn in the slow lane, and when the lane
 * is full the token is still compared (in constant time): the right one gets in, a wrong one is
 * refused (429) and counted against its address like any failure. 401 when it is wrong; else a new
 * signed session cookie value. So nobody else's failures lock out the right token
 * (docs/security.md, "Login limits").
 */
export async function login(presented: string, address: string): Promise<{ cookieValue: string; maxAge: number }> {
  const a = consoleAuth();
  const limiter = a.shared?.limiter;
  const gate = limiter ? await limiter.check(address) : a.limiter.check(address);
  const refused = () =>
    new ApiError("rate_limited", "Too many login attempts; try again later", { retryAfter: gate.retryAfter || 1 });
  if (!gate.allowed && gate.scope !== "total") throw refused();
  const laneFull = !gate.allowed && !(await a.slowLane.pass());
  if (!safeEqual(presented, a.token.token)) {
    if (limiter) await limiter.hit(address);
    else a.limiter.hit(address);
    throw laneFull ? refused() : new ApiError("unauthorized", "Wrong token");
  }
  return { cookieValue: mintSession(a.key).value, maxAge: SESSION_TTL_SECONDS };
}

/**
 * Ends the session a cookie stands for (a copied cookie stops working too, on every replica); answers
 * the session it ended, if any.
 */
export async function logout(cookieValue: string | undefined): Promise<SessionValue | undefined> {
  const a = consoleAuth();
  const s = verifySession(a.key, cookieValue);
  if (!s) return undefined;
  a.revoked.revoke(s);
  await a.shared?.loggedOut.add(s.id, s.exp * 1000);
  return s;
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
