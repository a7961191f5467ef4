// The security header values every answer gets, in one plain module: the proxy applies them
// (server/auth/policy.ts re-exports them), and next.config.mjs gives them to the answers the proxy
// does not see (Next's hashed static files and the icons). A Next config cannot import TypeScript
// or a server-only module, so the values live here, once.

/** Set on every answer. */
export const SECURITY_HEADERS = Object.freeze({
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Permissions-Policy":
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=(), midi=(), display-capture=(), browsing-topics=()",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
});

/** The policy of API answers (JSON and SSE): nothing may be loaded or framed from them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The policy of the console's own scripts (`/_next/static/…`). A script's own policy only applies
 * when it runs as a worker — the highlight worker (components/code/highlight.worker.ts) — which
 * loads its chunks with `importScripts`; nothing else may be loaded from it.
 */
export const STATIC_SCRIPT_CSP = "default-src 'none'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'";
