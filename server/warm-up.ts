import "server-only";
import { consoleOrigin, isLoopbackHost } from "./auth/announce";
import { consoleAuth } from "./auth/console-auth";
import { describeError } from "./errors";
import { log } from "./log";

/**
 * The pages a started console renders once for itself, so the first person to open one after a
 * start does not wait for the server's first render of it (its modules loaded and compiled on first
 * use: ~350 ms of a cold session page's first byte, docs/performance.md). A session page is asked
 * for as a link's prefetch asks (`next-router-prefetch`): the page and its components render without
 * loading a session, so the made-up address loads nothing.
 */
const PAGES: ReadonlyArray<{ path: string; headers?: Record<string, string> }> = [
  { path: "/" },
  { path: "/sessions/warm-up/warm-up", headers: { "next-router-prefetch": "1" } },
];

export interface WarmUpOptions {
  /** Where the console listens (default: where `next start` was told to, server/auth/announce.ts). */
  origin?: string;
  /** The console token the requests carry (default: the console's own). */
  token?: string;
  /** How long to wait for the server to listen before giving up. */
  waitMs?: number;
}

/**
 * Renders `PAGES` once, as soon as the server listens (it is called before it does). Only over
 * loopback (the console token never goes to another address, even one of this machine's own): a
 * console told to listen on a single other address starts cold. Never throws: a console that does
 * not answer simply starts cold. Off with SWITCHBOARD_WARM_UP=0, and in development (pages compile
 * on demand).
 */
export async function warmUp(opts: WarmUpOptions = {}): Promise<void> {
  if (process.env.SWITCHBOARD_WARM_UP === "0" || process.env.NODE_ENV === "development") return;
  const origin = opts.origin ?? consoleOrigin();
  if (!isLoopbackHost(new URL(origin).hostname)) return;
  const token = opts.token ?? consoleAuth().token.token;
  const deadline = Date.now() + (opts.waitMs ?? 30_000);
  const t0 = performance.now();
  for (const page of PAGES) {
    for (;;) {
      try {
        const res = await fetch(`${origin}${page.path}`, {
          headers: { authorization: `Bearer ${token}`, ...page.headers },
          redirect: "manual",
          signal: AbortSignal.timeout(15_000),
        });
        await res.arrayBuffer();
        break;
      } catch (err) {
        // Not listening yet (the server binds after start-up code runs): try again shortly.
        if (Date.now() > deadline) {
          log.info("the console's pages were not warmed up (its address did not answer)", {
            origin,
            error: describeError(err),
          });
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  log.debug("warmed up the console's pages", { ms: Math.round(performance.now() - t0) });
}
