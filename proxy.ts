/**
 * Every request passes here first (Next 16 "proxy", formerly middleware; Node runtime): cross-site
 * mutations are refused (403), everything but the public paths needs the console login — a session
 * cookie or `Authorization: Bearer <token>`, or for the API another replica's signed request — (401
 * for the API, a redirect to /login for pages), and every answer gets the security headers, pages a
 * Content-Security-Policy with a fresh nonce.
 * The logic lives in server/auth/ (unit-tested); docs/security.md explains the whole.
 */
import { NextResponse, type NextRequest } from "next/server";
import { authenticate, principalOf, SESSION_COOKIE } from "@/server/auth/console-auth";
import { admittedPeer } from "@/server/auth/peer-admission";
import { refusal } from "@/server/auth/permissions";
import {
  API_CSP,
  assetCsp,
  crossSiteReason,
  isApiPath,
  isPublicPath,
  newNonce,
  pageCsp,
  SECURITY_HEADERS,
} from "@/server/auth/policy";

function allowedOrigins(): string[] {
  return (process.env.SWITCHBOARD_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((s) => s.trim().replace(/\/$/, ""))
    .filter(Boolean);
}

function secured<R extends Response>(res: R, csp: string): R {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  if (!res.headers.has("content-security-policy")) res.headers.set("content-security-policy", csp);
  return res;
}

function apiError(status: 401 | 403, code: "unauthorized" | "forbidden", message: string): Response {
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="switchboard"';
  return Response.json({ error: { code, message } }, { status, headers });
}

const STATIC_FILES = new Set(["/icon.svg", "/favicon.ico", "/robots.txt", "/manifest.webmanifest", "/sw.js"]);

/** Pages are HTML documents; everything else (API, static files, the icons, the manifest) gets the strict API policy. */
function isPage(pathname: string): boolean {
  return (
    !isApiPath(pathname) &&
    !pathname.startsWith("/_next/") &&
    !pathname.startsWith("/icons/") &&
    !STATIC_FILES.has(pathname)
  );
}

export function proxy(req: NextRequest): Response {
  const { pathname, search } = req.nextUrl;
  const api = isApiPath(pathname);

  const crossSite = crossSiteReason(req.method, req.headers, allowedOrigins());
  if (crossSite) return secured(apiError(403, "forbidden", `Refused a ${crossSite}`), API_CSP);

  // Replica mode: another replica's request for a backend this one runs is signed for this one with
  // the replicas' key (server/auth/peer-admission.ts), never sent with the console token.
  const admitted = () =>
    !!authenticate(req.headers, req.cookies.get(SESSION_COOKIE)?.value) ||
    (api && admittedPeer(req.method, pathname + search, req.headers));
  if (!isPublicPath(pathname) && !admitted()) {
    if (api || !isPage(pathname)) {
      return secured(
        apiError(401, "unauthorized", "Log in to the console, or send Authorization: Bearer <token>"),
        API_CSP,
      );
    }
    const url = req.nextUrl.clone();
    url.pathname = "/login";
    url.search = "";
    const back = new URLSearchParams(search);
    back.delete("_rsc"); // a client-side navigation's cache key, not part of the page's address
    const query = back.toString();
    url.searchParams.set("next", pathname + (query ? `?${query}` : ""));
    return secured(NextResponse.redirect(url, 307), API_CSP);
  }

  // Roles (docs/security.md, "Roles"): what each API route needs is declared once, in
  // server/auth/permissions.ts, and checked here for every caller. Another replica's signed request
  // was checked on the replica the person reached.
  if (api && !isPublicPath(pathname)) {
    const who = principalOf(req.headers, req.cookies.get(SESSION_COOKIE)?.value);
    const refused = who && refusal(req.method, pathname, who.role);
    if (refused) return secured(apiError(403, "forbidden", refused), API_CSP);
  }

  if (!isPage(pathname)) return secured(NextResponse.next(), assetCsp(pathname));

  // Next reads the nonce from the request's CSP header and puts it on its own scripts; the root
  // layout reads `x-nonce` for the theme script.
  const nonce = newNonce();
  const csp = pageCsp(nonce, { dev: process.env.NODE_ENV === "development" });
  const headers = new Headers(req.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", csp);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set("content-security-policy", csp);
  return secured(res, csp);
}

/**
 * Next's hashed static files and the icons never reach the proxy: they need no login, are most of
 * a page load's requests, and running the proxy for each cost the server ~1 ms of CPU per file
 * while the first paint waited on the same two cores. Their security headers come from
 * next.config.mjs `headers()` instead (the same values: server/auth/static-headers.test.ts).
 */
export const config = { matcher: ["/((?!_next/static/|icons/).*)"] };
