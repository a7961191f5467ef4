import type { Metadata } from "next";
import type { ReactNode } from "react";

/**
 * Shared sessions live outside the console: no sidebar, no console providers, nothing that calls
 * a console route. The token in the URL must not leak through Referer headers or search engines.
 */
export const metadata: Metadata = {
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};

export default function ShareLayout({ children }: { children: ReactNode }) {
  return children;
}
