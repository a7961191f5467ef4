import { describe, expect, it } from "vitest";
import { API_CSP, assetCsp, SECURITY_HEADERS, STATIC_SCRIPT_CSP } from "./policy";

interface HeaderRule {
  source: string;
  headers: { key: string; value: string }[];
}

/** next.config.mjs, loaded as Next loads it (a plain ES module). */
async function configRules(): Promise<HeaderRule[]> {
  const path = "../../next.config.mjs";
  const mod = (await import(/* @vite-ignore */ path)) as { default: { headers(): Promise<HeaderRule[]> } };
  return mod.default.headers();
}

/** The headers Next sends for `pathname`: every matching rule in order, a later one overriding. */
function headersFor(rules: HeaderRule[], pathname: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rules) {
    // path-to-regexp's forms used there: `:name(regex)` and `:name*`; the rest is literal.
    const pattern = r.source
      .split(/(:\w+\([^)]+\)|:\w+\*)/)
      .map((part) =>
        part.startsWith(":")
          ? part.endsWith("*")
            ? "(.*)"
            : `(${part.slice(part.indexOf("(") + 1, -1)})`
          : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("");
    if (!new RegExp(`^${pattern}$`).test(pathname)) continue;
    for (const h of r.headers) out[h.key.toLowerCase()] = h.value;
  }
  return out;
}

describe("the headers of what the proxy does not see (next.config.mjs)", () => {
  it("are the proxy's own for Next's static files and the icons", async () => {
    const rules = await configRules();
    for (const p of [
      "/_next/static/chunks/a.js",
      "/_next/static/chunks/turbopack-worker-abc.js",
      "/_next/static/chunks/a.css",
      "/_next/static/media/x.woff2",
      "/icons/sprite.svg",
      "/icons/apple-touch-icon.png",
    ]) {
      const h = headersFor(rules, p);
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(h[k.toLowerCase()], `${p} ${k}`).toBe(v);
      expect(h["content-security-policy"], p).toBe(assetCsp(p));
    }
    expect(headersFor(rules, "/_next/static/chunks/a.js")["content-security-policy"]).toBe(STATIC_SCRIPT_CSP);
    expect(headersFor(rules, "/icons/sprite.svg")["content-security-policy"]).toBe(API_CSP);
  });

  it("the proxy skips exactly those paths", async () => {
    const { config } = await import("../../proxy");
    const skipped = (p: string) => !new RegExp(`^${config.matcher[0]}$`).test(p);
    for (const p of ["/_next/static/chunks/a.js", "/icons/sprite.svg"]) expect(skipped(p), p).toBe(true);
    for (const p of ["/", "/sessions/a/b", "/api/health", "/_next/image", "/sw.js", "/login", "/iconsx"])
      expect(skipped(p), p).toBe(false);
  });
});
