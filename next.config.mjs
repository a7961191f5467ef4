// The headers every answer gets (server/auth/header-values.mjs, the proxy's own values), for the
// answers the proxy does not see: Next's hashed static files and the icons (proxy.ts,
// `config.matcher`), which need no login and are the bulk of a page load's requests. A unit test
// (server/auth/static-headers.test.ts) checks the rules give each path the proxy's headers.
import { API_CSP, SECURITY_HEADERS, STATIC_SCRIPT_CSP } from "./server/auth/header-values.mjs";

const secured = (csp) => [
  ...Object.entries(SECURITY_HEADERS).map(([key, value]) => ({ key, value })),
  { key: "Content-Security-Policy", value: csp },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and process-spawning modules stay out of the server bundle.
  serverExternalPackages: ["better-sqlite3", "@opencode-ai/sdk", "@a2a-js/sdk", "@lydell/node-pty"],
  devIndicators: false,
  // `npm test` type-checks the whole project itself (`tsc` over the sources and the route types the
  // build writes, beside the end-to-end tests: scripts/test.mjs) and builds with
  // SWITCHBOARD_TYPES_CHECKED=1, so the build skips a second pass over the same files (30–60 s of CI on
  // two cores). A plain `npm run build` still checks types.
  typescript: { ignoreBuildErrors: process.env.SWITCHBOARD_TYPES_CHECKED === "1" },
  // Source maps in the browser build only for the bundle analysis (`npm run bench -- bundle`, scripts/bundle-size.ts).
  productionBrowserSourceMaps: process.env.SWITCHBOARD_SOURCE_MAPS === "1",
  // The icon sprite's URL names its content (app/icons.css: `?v=<hash>`), so a browser keeps it.
  async headers() {
    return [
      { source: "/_next/static/:path*", headers: secured(API_CSP) },
      // A script's own policy (a worker's): later rules override earlier ones for the same header.
      { source: "/_next/static/:path(.+\\.js)", headers: secured(STATIC_SCRIPT_CSP) },
      { source: "/icons/:path*", headers: secured(API_CSP) },
      {
        source: "/icons/sprite.svg",
        headers: [{ key: "Cache-Control", value: "public, max-age=31536000, immutable" }],
      },
    ];
  },
};
export default nextConfig;
