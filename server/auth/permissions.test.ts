import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Need, ROLES, type Role, roleAllows } from "@/lib/people";
import { proxy } from "../../proxy";
import { personSession, SESSION_COOKIE } from "./console-auth";
import { ROUTE_RULES, ruleFor } from "./permissions";
import { isPublicPath } from "./policy";

/**
 * Every route under app/api, found by walking the folder, against every role: each exported method
 * has a declared need (server/auth/permissions.ts), and the proxy lets each role through exactly
 * when its role allows that need (403 otherwise); the token is still the admin.
 */

const TOKEN = "permissions-test-token-0123456789";
let dir: string;
const saved = { token: process.env.SWITCHBOARD_TOKEN, data: process.env.SWITCHBOARD_DATA_DIR };
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sb-perm-"));
  process.env.SWITCHBOARD_TOKEN = TOKEN;
  process.env.SWITCHBOARD_DATA_DIR = dir;
});
afterAll(() => {
  if (saved.token === undefined) delete process.env.SWITCHBOARD_TOKEN;
  else process.env.SWITCHBOARD_TOKEN = saved.token;
  if (saved.data === undefined) delete process.env.SWITCHBOARD_DATA_DIR;
  else process.env.SWITCHBOARD_DATA_DIR = saved.data;
  fs.rmSync(dir, { recursive: true, force: true });
});

interface FoundRoute {
  method: string;
  /** The folder under app/, as a pattern (`/api/backends/[backendId]`). */
  pattern: string;
  /** A concrete path for it. */
  path: string;
}

function walk(folder: string, out: FoundRoute[] = []): FoundRoute[] {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.name === "route.ts") {
      const pattern = `/${path.relative(path.resolve("app"), folder).split(path.sep).join("/")}`;
      const source = fs.readFileSync(full, "utf8");
      for (const m of source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g))
        out.push({ method: m[1] as string, pattern, path: pattern.replace(/\[[^\]]+\]/g, "p1") });
    }
  }
  return out;
}

const ROUTES = walk(path.resolve("app/api"));

function req(p: string, method: string, headers: Record<string, string>) {
  return new NextRequest(new URL(p, "http://127.0.0.1:3000"), {
    method,
    headers: { host: "127.0.0.1:3000", ...headers },
  });
}

const cookieFor = (role: Role) =>
  `${SESSION_COOKIE}=${personSession({ user: { id: `u-${role}`, name: role, email: "" }, role }).cookieValue}`;

describe("roles on every API route", () => {
  it("finds the routes, and every one declares what it needs (and nothing is declared that does not exist)", () => {
    expect(ROUTES.length).toBeGreaterThan(40);
    const missing = ROUTES.filter((r) => ruleFor(r.method, r.path)?.path !== r.pattern);
    expect(
      missing.map((r) => `${r.method} ${r.pattern}`),
      "declare these in server/auth/permissions.ts",
    ).toEqual([]);
    const stale = ROUTE_RULES.filter(
      (rule) => !ROUTES.some((r) => r.method === rule.method && r.pattern === rule.path),
    );
    expect(stale.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it("declares public exactly the routes the proxy lets through without a login", () => {
    for (const r of ROUTES) {
      const need = ruleFor(r.method, r.path)?.need;
      expect(need === "public", `${r.method} ${r.pattern}`).toBe(isPublicPath(r.path));
    }
  });

  it("lets each role through exactly where its role allows (403 elsewhere); the token is the admin", async () => {
    const seen: Record<Role, Record<Need, number>> = {
      viewer: { public: 0, read: 0, operate: 0, admin: 0 },
      operator: { public: 0, read: 0, operate: 0, admin: 0 },
      admin: { public: 0, read: 0, operate: 0, admin: 0 },
    };
    for (const r of ROUTES) {
      const need = ruleFor(r.method, r.path)?.need as Need;
      for (const role of ROLES) {
        const res = proxy(req(r.path, r.method, { cookie: cookieFor(role) }));
        const allowed = roleAllows(role, need);
        expect(res.status, `${role} ${r.method} ${r.pattern}`).toBe(allowed ? 200 : 403);
        if (!allowed) expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/Your role/);
        seen[role][need] += allowed ? 1 : 0;
      }
      const token = proxy(req(r.path, r.method, { authorization: `Bearer ${TOKEN}` }));
      expect(token.status, `token ${r.method} ${r.pattern}`).toBe(200);
    }
    // Viewers read, operators also work sessions, admins also run the console.
    expect(seen.viewer.operate + seen.viewer.admin).toBe(0);
    expect(seen.viewer.read).toBeGreaterThan(20);
    expect(seen.operator.operate).toBeGreaterThan(10);
    expect(seen.operator.admin).toBe(0);
    expect(seen.admin.admin).toBeGreaterThan(5);
  });

  it("refuses the writes the issue names for a viewer, and the console's own settings for an operator", () => {
    const S = "/api/backends/b1/sessions/s1";
    const viewerRefused = [
      ["POST", `${S}/prompt`],
      ["POST", `${S}/abort`],
      ["POST", `${S}/interrupts/i1`],
      ["POST", `${S}/fork`],
      ["POST", `${S}/revert`],
      ["POST", "/api/shares"],
      ["PUT", "/api/search/settings"],
      ["POST", "/api/backends"],
    ];
    for (const [method, p] of viewerRefused)
      expect(proxy(req(p as string, method as string, { cookie: cookieFor("viewer") })).status, p).toBe(403);
    for (const [method, p] of [
      ["POST", "/api/backends"],
      ["DELETE", "/api/backends/b1"],
      ["POST", "/api/shares/patterns"],
      ["PUT", "/api/search/settings"],
      ["GET", "/api/audit"],
    ])
      expect(proxy(req(p as string, method as string, { cookie: cookieFor("operator") })).status, p).toBe(403);
    expect(proxy(req(`${S}/prompt`, "POST", { cookie: cookieFor("operator") })).status).toBe(200);
    // An unknown API path is refused to every role, even the admin (nothing is allowed by omission).
    expect(proxy(req("/api/nothing-here", "GET", { cookie: cookieFor("admin") })).status).toBe(403);
  });
});
