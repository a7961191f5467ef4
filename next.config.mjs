/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and process-spawning modules stay out of the server bundle.
  serverExternalPackages: ["better-sqlite3", "@opencode-ai/sdk", "@a2a-js/sdk", "@lydell/node-pty"],
  devIndicators: false,
  // Source maps in the browser build only for the bundle analysis (`npm run bench -- bundle`, scripts/bundle-size.ts).
  productionBrowserSourceMaps: process.env.SWITCHBOARD_SOURCE_MAPS === "1",
};
export default nextConfig;
