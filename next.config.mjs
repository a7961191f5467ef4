/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and process-spawning modules stay out of the server bundle.
  serverExternalPackages: ["better-sqlite3", "@opencode-ai/sdk", "@a2a-js/sdk", "@lydell/node-pty"],
  devIndicators: false,
  // `npm test` type-checks the whole project before it builds (`npm run typecheck`: `next typegen`, so
  // the route types Next's own check validates are included, then `tsc`), and says so with
  // SWITCHBOARD_TYPES_CHECKED=1: the build then skips its second pass over the same files (30–60 s
  // of CI on two cores). A plain `npm run build` still checks types.
  typescript: { ignoreBuildErrors: process.env.SWITCHBOARD_TYPES_CHECKED === "1" },
  // Source maps in the browser build only for the bundle analysis (`npm run bench -- bundle`, scripts/bundle-size.ts).
  productionBrowserSourceMaps: process.env.SWITCHBOARD_SOURCE_MAPS === "1",
};
export default nextConfig;
