/**
 * The console lets no one in who does not belong (docs/security.md): every route and
 * page refuses a request without credentials or with wrong ones (except the public few), logins are
 * rate limited and logout ends the session, cross-site writes are refused, bodies are bounded and
 * validated, client directories stay inside the workspace roots, secrets stay on the server, and
 * pages carry a nonce CSP that blocks injected script.
 */
import { fromAddress } from "../testkit/loopback-client";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext, APIResponse, Browser, BrowserContext } from "@playwright/test";
import { test, expect } from "./fixtures/opencode";
import { authHeaders } from "../testkit/opencode-stack";

const ROOT = path.resolve(import.meta.dirname, "..");
const APP = path.join(ROOT, "app");
const SAMPLE: Record<string, string> = {
  backendId: "local",
  sessionId: "ses_00000000000000000000000000",
  interruptId: "per_00000000000000000000000000",
};

function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** The URL path of an app-router file's directory: route groups dropped, dynamic segments filled in. */
function urlOf(file: string): string {
  const segs = path
    .relative(APP, path.dirname(file))
    .split(path.sep)
    .filter((seg) => seg !== "" && !/^\(.*\)$/.test(seg))
    .map((seg) => seg.replace(/^\[(?:\.\.\.)?(\w+)\]$/, (_m, name: string) => SAMPLE[name] ?? "sample"));
  return `/${segs.join("/")}`;
}

/** Every `app/api/**\/route.ts` with the methods it exports. */
function apiRoutes(): { method: string; url: string }[] {
  return walk(path.join(APP, "api"))
    .filter((f) => f.endsWith(`${path.sep}route.ts`))
    .flatMap((f) => {
      const src = fs.readFileSync(f, "utf8");
      const methods = [
        ...src.matchAll(/export\s+(?:const|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g),
      ].map((m) => m[1]!);
      return methods.map((method) => ({ method, url: urlOf(f) }));
    });
}

function pages(): string[] {
  return walk(APP)
    .filter((f) => /[/\\]page\.tsx$/.test(f))
    .map(urlOf);
}

const PUBLIC_API = new Set([
  "GET /api/health",
  "POST /api/auth/login",
  "GET /api/auth/oidc/login",
  "GET /api/auth/oidc/callback",
]);
const PUBLIC_PAGES = new Set(["/login"]);
/** Share links answer to their own token (see shares.spec.ts), never to the console login. */
const isShareRoute = (url: string) => url.startsWith("/api/shares/public/") || url.startsWith("/share/");
/** Event streams never end: an open one is checked by its headers (below), not read to the end. */
const isStream = (method: string, url: string) =>
  method === "GET" && (url.endsWith("/events") || url.endsWith("/live"));

function call(
  ctx: APIRequestContext,
  method: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<APIResponse> {
  return ctx.fetch(url, { method, headers, maxRedirects: 0, ...(method === "GET" ? {} : { data: {} }) });
}

async function errorCode(r: APIResponse): Promise<string | undefined> {
  return ((await r.json().catch(() => undefined)) as { error?: { code?: string } } | undefined)?.error?.code;
}

/** A browser context with no login at all. */
function anonymousContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  return browser.newContext({ baseURL });
}

test.describe("authentication", () => {
  test("every API route and page refuses a missing, wrong or forged credential; public ones stay open", async ({
    playwright,
    stack,
  }) => {
    const routes = apiRoutes();
    const pageUrls = pages();
    expect(routes.length, "routes found").toBeGreaterThanOrEqual(16);
    expect(pageUrls).toEqual(
      expect.arrayContaining(["/", "/login", `/sessions/${SAMPLE.backendId}/${SAMPLE.sessionId}`]),
    );
    const anon = await playwright.request.newContext({ baseURL: stack.url });
    try {
      const creds: [string, Record<string, string>][] = [
        ["none", {}],
        ["wrong bearer", { authorization: "Bearer not-the-token" }],
        ["bearer with the token's prefix", { authorization: `Bearer ${stack.token.slice(0, -1)}` }],
        ["forged cookie", { cookie: `sb_session=v1.AAAAAAAAAAAAAAAAAAAAAA.9999999999.${"A".repeat(43)}` }],
        ["raw token as cookie", { cookie: `sb_session=${stack.token}` }],
      ];
      for (const { method, url } of routes) {
        const key = `${method} ${url}`;
        // The share pages' live stream is public and opens for anyone (it carries shares by token only).
        if (method === "GET" && url === "/api/shares/public/live") {
          const ac = new AbortController();
          const r = await fetch(`${stack.url}${url}`, { signal: ac.signal });
          expect(r.status, `${key} is public`).toBe(200);
          expect(r.headers.get("content-type")).toContain("text/event-stream");
          ac.abort();
          continue;
        }
        for (const [label, headers] of creds) {
          const r = await call(anon, method, url, headers);
          if (PUBLIC_API.has(key) || isShareRoute(url)) {
            expect(r.status(), `${key} (${label}) is public`).not.toBe(401);
          } else {
            expect(r.status(), `${key} (${label})`).toBe(401);
            expect(await errorCode(r), `${key} (${label})`).toBe("unauthorized");
          }
        }
      }
      for (const url of pageUrls) {
        for (const [label, headers] of creds) {
          const r = await call(anon, "GET", url, headers);
          if (isShareRoute(url)) {
            expect(r.status(), `${url} (${label}) needs only its share token`).not.toBe(307);
          } else if (PUBLIC_PAGES.has(url)) {
            expect(r.status(), `${url} (${label}) is public`).toBe(200);
          } else {
            expect(r.status(), `${url} (${label})`).toBe(307);
            expect(r.headers().location, `${url} (${label})`).toBe(`/login?next=${encodeURIComponent(url)}`);
          }
        }
      }
      // The right credential opens them (GET only: enough to show the gate is the credential).
      for (const { method, url } of routes.filter((r) => r.method === "GET" && !isStream(r.method, r.url))) {
        expect(
          (await call(anon, method, url, authHeaders(stack))).status(),
          `${method} ${url} with the token`,
        ).not.toBe(401);
      }
      // Reserved public prefixes and static assets need no login.
      expect((await anon.get("/share/not-a-token", { maxRedirects: 0 })).status()).not.toBe(307);
      expect((await anon.get("/api/shares/public/not-a-token")).status()).not.toBe(401);
      expect((await anon.get("/icon.svg")).status()).toBe(200);
      const robots = await anon.get("/robots.txt");
      expect(robots.status()).toBe(200);
      expect(await robots.text()).toContain("Disallow: /");
      const loginHtml = await (await anon.get("/login")).text();
      const asset = /src="(\/_next\/static\/[^"]+\.js)"/.exec(loginHtml)?.[1];
      expect(asset).toBeTruthy();
      expect((await anon.get(asset!)).status()).toBe(200);
    } finally {
      await anon.dispose();
    }
  });

  test("the login page logs in, ?token= logs in by itself, and logout ends the session", async ({ browser, stack }) => {
    const ctx = await anonymousContext(browser, stack.url);
    try {
      const page = await ctx.newPage();
      await page.goto("/");
      await expect(page).toHaveURL(/\/login\?next=%2F$/);
      await page.getByTestId("login-token").fill("certainly-not-the-token");
      await page.getByTestId("login-submit").click();
      await expect(page.getByTestId("login-error")).toContainText("not right");
      await page.getByTestId("login-token").fill(stack.token);
      await page.getByTestId("login-submit").click();
      await expect(page.getByTestId("sidebar")).toBeVisible();
      expect(new URL(page.url()).pathname).toBe("/");
      const cookie = (await ctx.cookies()).find((c) => c.name === "sb_session");
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
      expect(cookie!.value).not.toContain(stack.token);
      expect(await page.evaluate(() => document.cookie)).not.toContain("sb_session");

      // Logout from the sidebar: back to the login page, and the old cookie is dead server-side too.
      await page.getByTestId("logout").click();
      await expect(page).toHaveURL(/\/login/);
      expect((await ctx.cookies()).find((c) => c.name === "sb_session")).toBeUndefined();
      const replay = await ctx.request.get(`${stack.url}/api/backends`, {
        headers: { cookie: `sb_session=${cookie!.value}` },
      });
      expect(replay.status()).toBe(401);
      await page.goto("/");
      await expect(page).toHaveURL(/\/login/);

      // The Jupyter-style URL printed at start-up: logs in and leaves no token in the address bar.
      const sessionUrl = `/sessions/${stack.backendId}/${SAMPLE.sessionId}`;
      await page.goto(`/login?next=${encodeURIComponent(sessionUrl)}&token=${encodeURIComponent(stack.token)}`);
      await expect(page).toHaveURL(new RegExp(`${sessionUrl}$`));
      await expect(page.getByTestId("sidebar")).toBeVisible();
      expect(page.url()).not.toContain(stack.token);
    } finally {
      await ctx.close();
    }
  });

  test("API login and logout; a logged-out cookie value stops working", async ({ playwright, stack }) => {
    const anon = await playwright.request.newContext({ baseURL: stack.url });
    try {
      const login = await anon.post("/api/auth/login", { data: { token: stack.token } });
      expect(login.status()).toBe(200);
      const setCookie = login.headers()["set-cookie"] ?? "";
      expect(setCookie).toMatch(/^sb_session=v1\.[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+/);
      expect(setCookie).not.toContain(stack.token);
      expect(await login.text()).not.toContain(stack.token);
      const value = /sb_session=([^;]+)/.exec(setCookie)![1]!;
      expect((await anon.get("/api/backends")).status()).toBe(200); // the context keeps the cookie
      const out = await anon.post("/api/auth/logout");
      expect(out.status()).toBe(200);
      expect(out.headers()["set-cookie"]).toMatch(/sb_session=;.*Max-Age=0/);
      expect((await anon.get("/api/backends")).status()).toBe(401);
      expect((await anon.get("/api/backends", { headers: { cookie: `sb_session=${value}` } })).status()).toBe(401);
      expect((await anon.post("/api/auth/login", { data: { token: "" } })).status()).toBe(400);
      expect((await anon.post("/api/auth/login", { data: { token: stack.token, extra: 1 } })).status()).toBe(400);
    } finally {
      await anon.dispose();
    }
  });

  test("failed logins are rate limited per client (429), counted by the socket's address, never by X-Forwarded-For", async ({
    stack,
  }) => {
    const login = (address: string, token: string, forwarded?: string) =>
      fromAddress(address, `${stack.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(forwarded ? { "x-forwarded-for": forwarded } : {}) },
        body: JSON.stringify({ token }),
      });
    // A new X-Forwarded-For each time does not make the same socket another client.
    for (let i = 0; i < 10; i++) {
      const r = await login("127.0.0.77", `guess-${i}`, `198.51.100.${i}`);
      expect(r.status, `attempt ${i + 1}`).toBe(401);
    }
    const blocked = await login("127.0.0.77", "guess-10", "198.51.100.200");
    expect(blocked.status).toBe(429);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    // Even the right token waits out the window from that client; another client is not affected.
    expect((await login("127.0.0.77", stack.token)).status).toBe(429);
    expect((await login("127.0.0.78", stack.token)).status).toBe(200);
  });
});

test.describe("hardening", () => {
  test("cross-site writes are refused with 403, same-origin ones pass", async ({ request, api, stack, page }) => {
    const url = api.base();
    const evil = await request.post(url, {
      data: { title: "csrf-by-origin" },
      headers: { origin: "http://evil.example" },
    });
    expect(evil.status()).toBe(403);
    expect(await errorCode(evil)).toBe("forbidden");
    const port = new URL(stack.url).port;
    const foreign: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site" },
      { origin: `http://localhost:${port}` },
      { origin: "null" },
    ];
    for (const headers of foreign) {
      expect((await request.post(url, { data: { title: "csrf" }, headers })).status(), JSON.stringify(headers)).toBe(
        403,
      );
    }
    expect((await request.delete(`${url}/ses_whatever`, { headers: { origin: "http://evil.example" } })).status()).toBe(
      403,
    );
    expect(
      (
        await request.post(`${stack.url}/api/auth/login`, {
          data: { token: stack.token },
          headers: { origin: "http://evil.example" },
        })
      ).status(),
    ).toBe(403);
    const same = await request.post(url, {
      data: { title: "same-origin write" },
      headers: { origin: stack.url, "sec-fetch-site": "same-origin" },
    });
    expect(same.status()).toBe(201);
    await request.delete(api.base(((await same.json()) as { id: string }).id));

    // A real cross-site form post from the logged-in browser (classic CSRF) gets 403 and creates nothing.
    await page.goto("about:blank");
    await page.setContent(
      `<form method="post" action="${url}" enctype="text/plain"><input name='{"title":"csrf-form","x":"' value='"}'></form>`,
    );
    await Promise.all([page.waitForNavigation(), page.locator("form").evaluate((f: HTMLFormElement) => f.submit())]);
    expect(await page.locator("body").textContent()).toContain("forbidden");
    const list = (await (await request.get(`${url}?search=csrf`)).json()) as { items: { title: string }[] };
    expect(list.items.map((s) => s.title)).toEqual([]);
  });

  test("bodies are bounded (413) and bodies and queries are validated (400 with issues)", async ({
    request,
    api,
    stack,
  }) => {
    const big = await request.post(`${stack.url}/api/backends`, {
      data: JSON.stringify({ kind: "opencode", label: "x".repeat(1_100_000) }),
      headers: { "content-type": "application/json" },
    });
    expect(big.status()).toBe(413);
    expect(await errorCode(big)).toBe("payload_too_large");
    const cases: [string, Promise<APIResponse>][] = [
      ["wrong type", request.post(api.base(), { data: { title: 5 } })],
      ["unknown field", request.post(api.base(), { data: { title: "t", admin: true } })],
      ["unknown query", request.get(`${stack.url}/api/backends?debug=1`)],
      ["bad limit", request.get(`${api.base()}?limit=0`)],
      ["bad Last-Event-ID", request.get(`${stack.url}/api/events`, { headers: { "last-event-id": "-1" } })],
      ["not JSON", request.post(api.base(), { data: "{", headers: { "content-type": "application/json" } })],
      ["body on abort", request.post(`${api.base("ses_x")}/abort`, { data: { now: true } })],
      // Routes that once read neither their query nor their body: refused now, not ignored.
      ["unknown query on tree", request.get(`${api.base("ses_x")}/tree?bogus=1`)],
      ["body on unrevert", request.post(`${api.base("ses_x")}/unrevert`, { data: { bogus: 1 } })],
      ["body on restart", request.post(`${stack.url}/api/backends/${stack.backendId}/restart`, { data: { bogus: 1 } })],
      ["unknown query on presets", request.get(`${stack.url}/api/backends/presets?v=1`)],
      ["unknown query on agents", request.get(`${stack.url}/api/backends/${stack.backendId}/agents?bogus=1`)],
      ["unknown query on logs", request.get(`${stack.url}/api/backends/${stack.backendId}/logs?bogus=1`)],
      ["unknown query on redaction patterns", request.get(`${stack.url}/api/shares/patterns?bogus=1`)],
      ["body on share revoke", request.delete(`${stack.url}/api/shares/shr_unknown`, { data: { bogus: 1 } })],
      [
        "body on pattern delete",
        request.delete(`${stack.url}/api/shares/patterns/pat_unknown`, { data: { bogus: 1 } }),
      ],
      ["unknown query on a POST with a valid body", request.post(`${api.base("ses_x")}/fork?bogus=1`, { data: {} })],
      ["unknown query next to known ones", request.get(`${api.base()}?limit=5&bogus=1`)],
      ["repeated query parameter", request.get(`${api.base()}?limit=5&limit=6`)],
    ];
    for (const [label, p] of cases) {
      const r = await p;
      expect(r.status(), label).toBe(400);
      const body = (await r.json()) as { error: { code: string; message: string; details?: { issues?: unknown[] } } };
      expect(body.error.code, label).toBe("bad_request");
      expect(body.error.message, label).not.toMatch(/\n\s+at /);
      if (label !== "not JSON" && label !== "bad Last-Event-ID")
        expect(body.error.details?.issues?.length, label).toBeGreaterThan(0);
    }
    // Body-less POSTs still take no body, or {}: validation lets them through to the lookup (an
    // unknown backend, so nothing is restarted) → 404. Routes without parameters answer without them.
    for (const init of [{}, { data: {} }]) {
      for (const url of [
        `${stack.url}/api/backends/nope/sessions/ses_x/unrevert`,
        `${stack.url}/api/backends/nope/restart`,
      ]) {
        const r = await request.post(url, init);
        expect(r.status(), `${url} ${JSON.stringify(init)}`).toBe(404);
        expect(await errorCode(r), `${url} ${JSON.stringify(init)}`).toBe("not_found");
      }
    }
    const s = await api.createSession("parameterless routes");
    try {
      expect((await request.get(`${api.base(s.id)}/tree`)).status()).toBe(200);
      expect((await request.get(`${stack.url}/api/backends/presets`)).status()).toBe(200);
    } finally {
      await request.delete(api.base(s.id));
    }
  });

  test("client directories must resolve inside the workspace roots, symlinks included (403)", async ({
    request,
    api,
    stack,
  }) => {
    const ws = stack.workspace;
    const outside = fs.realpathSync(os.tmpdir());
    fs.mkdirSync(path.join(ws, "inside-dir", "deeper"), { recursive: true });
    fs.symlinkSync(outside, path.join(ws, "escape-link"));
    fs.symlinkSync(path.join(ws, "inside-dir"), path.join(ws, "inside-link"));
    try {
      const create = (directory: string) => request.post(api.base(), { data: { title: "dir test", directory } });
      for (const directory of [
        `${ws}/..`,
        "..",
        "../..",
        `${ws}/inside-dir/../../`,
        "/",
        "/etc",
        `${ws}/escape-link`,
        "escape-link",
        "escape-link/.",
        `${ws}-sibling`,
      ]) {
        const r = await create(directory);
        expect(r.status(), directory).toBe(403);
        expect(await errorCode(r), directory).toBe("forbidden");
        expect(((await r.json()) as { error: { message: string } }).error.message, directory).not.toContain(
          outside === "/" ? "\0" : outside,
        );
      }
      // The embedded-server directory of a new backend is held to the same rule.
      const backend = await request.post(`${stack.url}/api/backends`, {
        data: { kind: "opencode", label: "outside", config: { directory: outside } },
      });
      expect(backend.status()).toBe(403);
      // So is a stdio (ACP) agent's cwd, which the agent's sessions and file reads would be confined
      // to: outside by `..` and by a symlink → 403, missing inside → 400, and nothing is added.
      const labels = async () =>
        ((await (await request.get(`${stack.url}/api/backends`)).json()) as { items: { label: string }[] }).items.map(
          (b) => b.label,
        );
      const before = await labels();
      for (const [cwd, status] of [
        [`${ws}/..`, 403],
        ["..", 403],
        [`${ws}/escape-link`, 403],
        ["escape-link/.", 403],
        ["/", 403],
        [`${ws}/no-such-dir`, 400],
      ] as const) {
        const r = await request.post(`${stack.url}/api/backends`, {
          data: { kind: "acp", label: "acp cwd test", config: { command: ["node", "-e", "0"], cwd } },
        });
        expect(r.status(), `cwd ${cwd}`).toBe(status);
        expect(await errorCode(r), `cwd ${cwd}`).toBe(status === 403 ? "forbidden" : "bad_request");
        expect(((await r.json()) as { error: { message: string } }).error.message, `cwd ${cwd}`).not.toContain(
          outside === "/" ? "\0" : outside,
        );
      }
      const after = await labels();
      expect(after).toEqual(before);
      expect(after).not.toContain("acp cwd test");
      // Inside is fine, and the session gets the real path.
      for (const [directory, real] of [
        ["inside-dir", path.join(ws, "inside-dir")],
        [`${ws}/inside-link/deeper`, path.join(ws, "inside-dir", "deeper")],
      ] as const) {
        const ok = await create(directory);
        expect(ok.status(), directory).toBe(201);
        const s = (await ok.json()) as { id: string; directory?: string };
        expect(s.directory).toBe(real);
        await request.delete(api.base(s.id));
      }
      expect((await create(`${ws}/no-such-dir`)).status()).toBe(400);
    } finally {
      fs.rmSync(path.join(ws, "escape-link"), { force: true });
      fs.rmSync(path.join(ws, "inside-link"), { force: true });
      fs.rmSync(path.join(ws, "inside-dir"), { recursive: true, force: true });
    }
  });

  test("secrets never reach a response", async ({ request, api, stack }) => {
    const oc = await stack.opencode();
    const password = Buffer.from(oc.headers.authorization!.slice("Basic ".length), "base64").toString().split(":")[1]!;
    expect(password.length).toBeGreaterThan(10);
    const s = await api.createSession("secrets");
    const bodies = await Promise.all(
      [
        request.get(`${stack.url}/api/backends`),
        request.get(`${stack.url}/api/backends/local`),
        request.get(api.base(s.id)),
        request.get(`${api.base(s.id)}/snapshot`),
        request.get(`${api.base("ses_missing000000")}/snapshot`),
        request.post(api.base(), { data: "{", headers: { "content-type": "application/json" } }),
      ].map(async (p) => (await p).text()),
    );
    for (const b of bodies) {
      expect(b).not.toContain(password);
      expect(b).not.toContain(stack.token);
      expect(b).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
    }
    await request.delete(api.base(s.id));
  });

  test("security headers, and a nonce CSP that blocks injected script", async ({ request, browser, stack }) => {
    const pageRes = await request.get(`${stack.url}/`);
    const h = pageRes.headers();
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["referrer-policy"]).toBe("no-referrer");
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["permissions-policy"]).toContain("camera=()");
    const csp = h["content-security-policy"] ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    for (const d of [
      "object-src 'none'",
      "base-uri 'none'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "'strict-dynamic'",
    ]) {
      expect(csp).toContain(d);
    }
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    const html = await pageRes.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(2);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    const second = (await request.get(`${stack.url}/`)).headers()["content-security-policy"];
    expect(second).not.toContain(nonce!);
    const api = (await request.get(`${stack.url}/api/backends`)).headers();
    expect(api["x-content-type-options"]).toBe("nosniff");
    expect(api["content-security-policy"]).toContain("default-src 'none'");
    // Static files skip the proxy (proxy.ts `config.matcher`) and get the same headers from next.config.mjs.
    const chunk = /\/_next\/static\/chunks\/[^"'\s]+\.js/.exec(html)?.[0];
    expect(chunk).toBeTruthy();
    for (const [path, csp] of [
      [chunk!, "default-src 'none'; script-src 'self';"],
      ["/icons/sprite.svg", "default-src 'none'; frame-ancestors"],
    ] as const) {
      const asset = await request.get(`${stack.url}${path}`);
      expect(asset.status(), path).toBe(200);
      const ah = asset.headers();
      expect(ah["x-content-type-options"], path).toBe("nosniff");
      expect(ah["x-frame-options"], path).toBe("DENY");
      expect(ah["cross-origin-resource-policy"], path).toBe("same-origin");
      expect(ah["content-security-policy"], path).toContain(csp);
    }

    // In the browser: the console's own scripts run (the page works), injected ones do not.
    const ctx = await browser.newContext({ baseURL: stack.url });
    await ctx.addCookies([{ name: "sb_session", value: stack.sessionCookie, url: stack.url }]);
    try {
      const page = await ctx.newPage();
      await page.goto("/");
      await expect(page.getByTestId("sidebar")).toBeVisible();
      await expect(page.locator("html")).toHaveAttribute("data-theme", /dark|light/);
      const result = await page.evaluate(async () => {
        const w = window as unknown as { __injected?: number };
        const violations: string[] = [];
        document.addEventListener("securitypolicyviolation", (e) => violations.push(e.violatedDirective));
        // What an HTML-injection bug would produce: an inline handler, a javascript: link, a srcdoc frame.
        const div = document.createElement("div");
        div.innerHTML = `<img src="data:," onerror="window.__injected=1"><a id="inj" href="javascript:window.__injected=2">x</a><iframe srcdoc="<script>parent.__injected=3</script>"></iframe>`;
        document.body.appendChild(div);
        (document.getElementById("inj") as HTMLAnchorElement).click();
        await new Promise((r) => setTimeout(r, 500));
        return { injected: w.__injected, violations };
      });
      expect(result.injected).toBeUndefined();
      expect(result.violations.length).toBeGreaterThanOrEqual(2);
      expect(result.violations.every((v) => v.startsWith("script-src"))).toBe(true);
    } finally {
      await ctx.close();
    }
  });
});
