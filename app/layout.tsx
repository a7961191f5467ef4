import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: "Switchboard",
  description: "A console for coding agents",
  applicationName: "Switchboard",
  appleWebApp: { capable: true, title: "Switchboard", statusBarStyle: "black-translucent" },
  // Listed here because an explicit `icons` replaces the file-based app/icon.svg: without the `icon`
  // entry the page had no icon link and the browser asked for /favicon.ico (a 404 on every load).
  icons: { icon: [{ url: "/icon.svg", type: "image/svg+xml" }], apple: "/icons/apple-touch-icon.png" },
};

// The manifest is app/manifest.ts. Theme colours follow the header of each theme (app/globals.css).
// `viewportFit: cover` lets env(safe-area-inset-*) pad the notch and the home indicator;
// `resizes-content` makes Android shrink the page above the on-screen keyboard.
export const viewport: Viewport = {
  colorScheme: "dark light",
  width: "device-width",
  initialScale: 1,
  viewportFit: "cover",
  interactiveWidget: "resizes-content",
  themeColor: [
    { media: "(prefers-color-scheme: dark)", color: "#14171c" },
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
  ],
};

/** Sets the theme before first paint so there is no flash; the value lives in localStorage. */
const themeScript = `try{var t=localStorage.getItem("sb-theme");if(t!=="light"&&t!=="dark"){t=matchMedia("(prefers-color-scheme: light)").matches?"light":"dark"}document.documentElement.dataset.theme=t}catch(e){document.documentElement.dataset.theme="dark"}`;

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The proxy puts a fresh nonce on every page request; the CSP allows only scripts carrying it.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" data-theme="dark" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script (the theme before first paint) under the CSP nonce */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body>{children}</body>
    </html>
  );
}
