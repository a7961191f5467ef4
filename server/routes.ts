import "server-only";
import { getApp, type ConsoleApp } from "./app";

export type SessionParams = { backendId: string; sessionId: string };
export type BackendParams = { backendId: string };

/** The console, started. Route handlers call this first. */
export async function app(): Promise<ConsoleApp> {
  const a = getApp();
  await a.ready;
  return a;
}

/**
 * Starts loading a session into the hub while the browser is still fetching and parsing the page's
 * scripts, so the snapshot request that follows finds the channel loaded or loading (the hub shares
 * one load between callers). Never throws and never waits: a session that cannot be loaded is the
 * snapshot route's to report.
 */
export function warmSession(backendId: string, sessionId: string): void {
  void app()
    .then(({ hub, backends }) => {
      backends.require(backendId);
      return hub.open(backendId, sessionId);
    })
    .catch(() => {});
}
