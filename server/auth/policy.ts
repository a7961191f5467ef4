import "server-only";
import { API_CSP, STATIC_SCRIPT_CSP } from "./header-values.mjs";

/**
 * The security headers every answer gets (`SECURITY_HEADERS`), the API's policy (`API_CSP`) and the
 * console's scripts' (`STATIC_SCRIPT_CSP`): plain values in server/auth/header-values.mjs, which
 * next.config.mjs reads too for the files the proxy does not see.
 */
export { API_CSP, SECURITY_HEADERS, STATIC_SCRIPT_CSP } from "./header-values.mjs";

/**
 * Request policy for the proxy (`proxy.ts`): which paths are public, cross-site request checks,
 * the Content-Security-Policy and the other security headers. Pure functions, unit-tested.
 */

/** Exact paths that need no login. */
const PUBLIC_EXACT = new Set([
  "/api/health",
  "/login",
  "/api/auth/login",
  "/api/auth/oidc/login",
  "/api/auth/oidc/callback",
  "/icon.svg",
  "/favicon.ico",
  "/robots.txt",
  "/manifest.webmanifest",
  // The service worker's script (docs/push.md): it holds nothing of the console's, and a browser
  // checks it for updates whether or not the login is still valid.
  "/sw.js",
]);
/** Path prefixes that need no login: Next's static assets, and the (token-protected) share routes. */
const PUBLIC_PREFIXES = ["/_next/static/", "/share/", "/api/shares/public/", "/icons/"];

export function isPublicPath(pathname: string): boolean {
  const p = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  if (PUBLIC_EXACT.has(p)) return true;
  return PUBLIC_PREFIXES.some((prefix) => pathname.startsWith(prefix));
}

export function isApiPath(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/");
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function isMutating(method: string): boolean {
  return MUTATING.has(method.toUpperCase());
}

/**
 * Why a mutating request looks cross-site, or undefined when it does not: `Sec-Fetch-Site:
 * cross-site`, or an `Origin` whose host differs from the `Host` the request was sent to (and is not
 * listed in `allowedOrigins`). Clients that send neither header (curl, scripts with a bearer token)
 * pass; browsers always send `Origin` on POST.
 */
export function crossSiteReason(
  method: string,
  headers: Headers,
  allowedOrigins: readonly string[] = [],
): string | undefined {
  if (!isMutating(method)) return undefined;
  const site = headers.get("sec-fetch-site");
  if (site && site.toLowerCase() === "cross-site") return "cross-site request";
  const origin = headers.get("origin");
  if (origin === null) return undefined;
  if (origin === "null") return "opaque origin";
  let originHost: string;
  try {
    const u = new URL(origin);
    if (u.protocol !== "http:" && u.protocol !== "https:") return "foreign origin";
    originHost = u.host.toLowerCase();
    if (allowedOrigins.includes(u.origin)) return undefined;
  } catch {
    return "malformed origin";
  }
  const host = headers.get("host")?.toLowerCase();
  if (!host || host !== originHost) return "foreign origin";
  return undefined;
}

/** `Authorization: Bearer <token>` → the token. */
export function bearerToken(headers: Headers): string | undefined {
  const h = headers.get("authorization");
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

/** A `next` parameter that can only lead back into this console (no open redirect). */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || next.length > 2000) return "/";
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a redirect target with a control character is refused
  if (/[\u0000-\u001f\u007f]/.test(next)) return "/";
  try {
    const u = new URL(next, "http://console.invalid");
    if (u.origin !== "http://console.invalid") return "/";
    if (u.pathname === "/login" || u.pathname.startsWith("/api/")) return "/";
    return u.pathname + u.search + u.hash;
  } catch {
    return "/";
  }
}

/**
 * The Content-Security-Policy of the console's pages: scripts only with this request's nonce
 * (Next's own scripts and the theme script carry it; `strict-dynamic` lets them load chunks), so
 * nothing inline from content can run. Styles may be inline (React style attributes, shiki tokens).
 */
export function pageCsp(nonce: string, opts: { dev?: boolean } = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${opts.dev ? " ws: wss:" : ""}`,
    "media-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * The service worker's policy (public/sw.js, docs/push.md): it answers an interrupt through the
 * console's own API and shows the console's icon; nothing else.
 */
export const SERVICE_WORKER_CSP =
  "default-src 'none'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The policy for an answer that is not a page: the console's scripts get theirs, the rest the API's. */
export function assetCsp(pathname: string): string {
  if (pathname === "/sw.js") return SERVICE_WORKER_CSP;
  return pathname.startsWith("/_next/static/") && pathname.endsWith(".js") ? STATIC_SCRIPT_CSP : API_CSP;
}

/** A fresh nonce for one page answer (128 random bits). */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64");
}
