/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and process-spawning modules stay out of the server bundle.
  serverExternalPackages: ["better-sqlite3", "@opencode-ai/sdk", "@a2a-js/sdk"],
  devIndicators: false,
};
export default nextConfig;
