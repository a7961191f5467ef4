import "server-only";
import type { Hub } from "./hub";
import type { SessionChannel } from "./session-channel";
import type { SseSink } from "./sse";

/**
 * A session's events followed from another console (replica mode: the one that runs its backend),
 * passed on as they come; `lost` is called when that stream ends.
 */
export interface FollowedSession {
  attach(sink: SseSink, lost: () => void): () => void;
}

/** Where a browser's live stream gets a session's events: this console's channel, or a followed stream. */
export type SessionFeed =
  | { channel: SessionChannel; followed?: undefined }
  | { channel?: undefined; followed: FollowedSession };

/**
 * Where a session's events come from (server/live.ts). One console opens its own hub's channel;
 * in replica mode a session whose backend runs on another replica is followed from there.
 */
export interface SessionSource {
  open(backendId: string, sessionId: string, after: number | undefined): Promise<SessionFeed>;
}

/** One console: every session's events come from this hub. */
export function localSessionSource(hub: Hub): SessionSource {
  return { open: async (backendId, sessionId) => ({ channel: await hub.open(backendId, sessionId) }) };
}
