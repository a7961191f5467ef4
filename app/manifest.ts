import type { MetadataRoute } from "next";

/**
 * The web app manifest (`/manifest.webmanifest`): "Add to home screen" gives a standalone app. Icons
 * are rendered from public/icons/*.svg by scripts/icons.mjs. No service worker: nothing is cached
 * offline, so API answers and session content never land in a cache.
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "Switchboard",
    short_name: "Switchboard",
    description: "A console for coding agents",
    id: "/",
    start_url: "/",
    scope: "/",
    display: "standalone",
    orientation: "any",
    background_color: "#0e1014",
    theme_color: "#14171c",
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icons/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
      { src: "/icons/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" },
    ],
  };
}
