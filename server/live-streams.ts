import "server-only";
import { MuxRegistry } from "./hub/mux";

/**
 * Which live streams: the console's (`/api/live`, behind the login: global channel, sessions and
 * shares) or the share pages' (`/api/shares/public/live`, public: shares only, by token).
 */
export type LiveScope = "console" | "share";

const g = globalThis as typeof globalThis & { __switchboardLive?: Record<LiveScope, MuxRegistry> };

/** The open live streams of a scope (one per browser), kept on globalThis like the app. */
export function liveStreams(scope: LiveScope): MuxRegistry {
  g.__switchboardLive ??= { console: new MuxRegistry(), share: new MuxRegistry(1000) };
  return g.__switchboardLive[scope];
}
