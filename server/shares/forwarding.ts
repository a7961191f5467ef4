import "server-only";
import type { SharedSnapshot } from "@/lib/api";
import type { FollowedSession } from "../hub/session-source";
import type { StreamQuota } from "./stream-quota";

/**
 * The share service's forwarding part (replica mode, docs/replicas.md): a live share's session may
 * run on another console; its snapshot and events then come from that console's public share
 * routes, by token, and requests that make a share are sent there. One console has none.
 */
export interface ShareForwarding {
  runsElsewhere(backendId: string): boolean;
  /** Sends a request to the console that runs the backend; its answer as it comes. */
  forward(req: Request, backendId: string, json?: unknown): Promise<Response>;
  /** That console's public share stream for `token`, from `after`, passed on byte for byte. */
  follow(token: string, backendId: string, after: number | undefined): Promise<FollowedSession>;
  /** That console's public snapshot for `token` (not counted as a view there). */
  snapshot(token: string, backendId: string): Promise<SharedSnapshot>;
  /**
   * Did another console send this request on a viewer's behalf (checked: signed, not replayed)?
   * That console counts the view and the stream slot, so this one does not.
   */
  fromPeer(req: Request): boolean;
}

/** Unknown share tokens counted over every console (replica mode), checked synchronously. */
export interface SharedFailures {
  blockedFor(client: string): number;
  fail(client: string): void;
}

/** What sharing takes from the composition root (server/app.ts): the parts that differ across replicas. */
export interface ShareParts {
  /** The public share streams open here, per client address and in all. */
  streams: StreamQuota;
  forwarding?: ShareForwarding | undefined;
  sharedFailures?: SharedFailures | undefined;
}
