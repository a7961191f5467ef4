import "server-only";
import { MuxRegistry } from "./hub/mux";

/**
 * Which live streams: the console's (`/api/live`, behind the login: global channel, sessions and
 * shares) or the share pages' (`/api/shares/public/live`, public: shares only, by token).
 */
export type LiveScope = "console" | "share";

const g = globalThis as typeof globalThis & { __switchboardLive?: Record<LiveScope, MuxRegistry> };

const registries = (idPrefix = ""): Record<LiveScope, MuxRegistry> => ({
  console: new MuxRegistry(5000, idPrefix),
  share: new MuxRegistry(1000, idPrefix),
});

/** The open live streams of a scope (one per browser), kept on globalThis like the app. */
export function liveStreams(scope: LiveScope): MuxRegistry {
  g.__switchboardLive ??= registries();
  return g.__switchboardLive[scope];
}

/**
 * Called by the composition root as it builds the console, before any stream opens: live stream
 * ids start with `idPrefix` (replica mode names the replica that holds a stream).
 */
export function nameLiveStreams(idPrefix: string): void {
  g.__switchboardLive = registries(idPrefix);
}
