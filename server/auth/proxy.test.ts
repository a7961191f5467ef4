import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { consoleTokenPerFile } from "../../testkit/console-token";
import { proxy } from "../../proxy";
import { login, SESSION_COOKIE } from "./console-auth";

const TOKEN = "proxy-test-console-token-abcdefgh";
consoleTokenPerFile(TOKEN, "sb-proxy-");

const ORIGIN = "http://127.0.0.1:3000";
function req(p: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  return new NextRequest(new URL(p, ORIGIN), {
    method: init.method ?? "GET",
    headers: { host: "127.0.0.1:3000", ...init.headers },
  });
}

describe("proxy", () => {
  it("answers 401 JSON for the API and redirects pages to /login?next=", async () => {
    const api = proxy(req("/api/backends"));
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
    const page = proxy(req("/sessions/local/ses_1?x=1"));
    expect(page.status).toBe(307);
    const loc = new URL(page.headers.get("location") ?? "");
    expect(loc.pathname + loc.search).toBe("/login?next=%2Fsessions%2Flocal%2Fses_1%3Fx%3D1");
  });

  it("lets public paths through and puts security headers on everything", () => {
    for (const p of ["/api/health", "/login", "/_next/static/x.js", "/share/t"]) {
      const r = proxy(req(p));
      expect(r.status, p).toBe(200);
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("referrer-policy")).toBe("no-referrer");
      expect(r.headers.get("content-security-policy")).toBeTruthy();
    }
  });

  it("accepts a bearer token or a session cookie; a wrong one is 401", async () => {
    expect(proxy(req("/api/backends", { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(proxy(req("/api/backends", { headers: { authorization: "Bearer nope" } })).status).toBe(401);
    const { cookieValue } = await login(TOKEN, "proxy-test");
    expect(proxy(req("/api/backends", { headers: { cookie: `${SESSION_COOKIE}=${cookieValue}` } })).status).toBe(200);
    expect(proxy(req("/api/backends", { headers: { cookie: `${SESSION_COOKIE}=${cookieValue}x` } })).status).toBe(401);
  });

  it("gives pages a nonce CSP and passes the nonce to the render", () => {
    const r = proxy(req("/", { headers: { authorization: `Bearer ${TOKEN}`, "x-nonce": "attacker" } }));
    const csp = r.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(nonce).not.toBe("attacker");
    expect(r.headers.get("x-middleware-request-x-nonce")).toBe(nonce);
  });

  it("refuses cross-site mutations before anything else", async () => {
    const r = proxy(req("/api/auth/login", { method: "POST", headers: { origin: "http://evil.example" } }));
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect(
      proxy(
        req("/api/backends", {
          method: "POST",
          headers: { "sec-fetch-site": "cross-site", authorization: `Bearer ${TOKEN}` },
        }),
      ).status,
    ).toBe(403);
  });
});
