import { describe, expect, it } from "vitest";
import {
  API_CSP,
  assetCsp,
  bearerToken,
  crossSiteReason,
  isPublicPath,
  newNonce,
  pageCsp,
  safeNextPath,
  STATIC_SCRIPT_CSP,
} from "./policy";

const h = (o: Record<string, string>) => new Headers(o);

describe("public paths", () => {
  it("lists exactly the login, health, static and share paths", () => {
    for (const p of [
      "/api/health",
      "/login",
      "/login/",
      "/api/auth/login",
      "/_next/static/chunks/a.js",
      "/icon.svg",
      "/robots.txt",
      "/manifest.webmanifest",
      "/icons/icon-192.png",
      "/share/abc",
      "/api/shares/public/abc/snapshot",
    ]) {
      expect(isPublicPath(p), p).toBe(true);
    }
    for (const p of [
      "/",
      "/sessions/a/b",
      "/api/backends",
      "/api/auth/logout",
      "/api/healthz",
      "/loginx",
      "/api/shares",
      "/share",
      "/_next/image",
      "/api/events",
    ]) {
      expect(isPublicPath(p), p).toBe(false);
    }
  });
});

describe("cross-site checks", () => {
  it("lets reads and header-less clients through", () => {
    expect(crossSiteReason("GET", h({ "sec-fetch-site": "cross-site", origin: "http://evil" }))).toBeUndefined();
    expect(crossSiteReason("POST", h({ host: "127.0.0.1:3000" }))).toBeUndefined();
  });
  it("accepts the console's own origin", () => {
    expect(
      crossSiteReason(
        "POST",
        h({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000", "sec-fetch-site": "same-origin" }),
      ),
    ).toBeUndefined();
  });
  it("refuses cross-site fetch metadata, foreign, opaque and malformed origins", () => {
    expect(crossSiteReason("POST", h({ host: "127.0.0.1:3000", "sec-fetch-site": "cross-site" }))).toBe(
      "cross-site request",
    );
    expect(crossSiteReason("DELETE", h({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:8080" }))).toBe(
      "foreign origin",
    );
    expect(crossSiteReason("PATCH", h({ host: "127.0.0.1:3000", origin: "null" }))).toBe("opaque origin");
    expect(crossSiteReason("PUT", h({ host: "127.0.0.1:3000", origin: "::nope" }))).toBe("malformed origin");
    expect(crossSiteReason("POST", h({ origin: "http://127.0.0.1:3000" }))).toBe("foreign origin");
  });
  it("accepts configured origins (a reverse proxy that rewrites Host)", () => {
    expect(
      crossSiteReason("POST", h({ host: "127.0.0.1:3000", origin: "https://console.example.com" }), [
        "https://console.example.com",
      ]),
    ).toBeUndefined();
  });
});

describe("helpers", () => {
  it("reads bearer tokens", () => {
    expect(bearerToken(h({ authorization: "Bearer abc.def" }))).toBe("abc.def");
    expect(bearerToken(h({ authorization: "bearer   xyz " }))).toBe("xyz");
    expect(bearerToken(h({ authorization: "Basic abc" }))).toBeUndefined();
    expect(bearerToken(h({}))).toBeUndefined();
  });
  it("keeps next= inside the console", () => {
    expect(safeNextPath("/sessions/a/b?x=1#m")).toBe("/sessions/a/b?x=1#m");
    for (const bad of [
      null,
      "",
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "javascript:alert(1)",
      "/login?next=/",
      "/api/backends",
      "/a\nb",
    ]) {
      expect(safeNextPath(bad), String(bad)).toBe("/");
    }
  });
  it("builds a nonce CSP without unsafe-inline scripts", () => {
    const n = newNonce();
    expect(n).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(newNonce()).not.toBe(n);
    const csp = pageCsp(n);
    expect(csp).toContain(`script-src 'self' 'nonce-${n}' 'strict-dynamic'`);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toContain("unsafe-eval");
    for (const d of [
      "object-src 'none'",
      "base-uri 'none'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "frame-ancestors 'none'",
    ])
      expect(csp).toContain(d);
    expect(pageCsp(n, { dev: true })).toContain("unsafe-eval");
  });
});

describe("asset policies", () => {
  it("lets the console's own scripts load their chunks as workers, and nothing else", () => {
    expect(assetCsp("/_next/static/chunks/turbopack-worker-abc.js")).toBe(STATIC_SCRIPT_CSP);
    expect(STATIC_SCRIPT_CSP).toContain("default-src 'none'");
    expect(STATIC_SCRIPT_CSP).toMatch(/script-src 'self'(;|$)/);
    expect(STATIC_SCRIPT_CSP).not.toMatch(/unsafe|connect-src|\*/);
    for (const p of ["/_next/static/chunks/a.css", "/api/health", "/icon.svg", "/_next/image", "/api/x.js"])
      expect(assetCsp(p), p).toBe(API_CSP);
  });
});
