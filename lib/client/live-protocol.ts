/**
 * What the tabs of one browser say to each other over their BroadcastChannel to share one live
 * stream (docs/architecture.md, "One live stream per browser"). The leader tab holds the stream;
 * every tab tells it what it follows (`want`), and the leader relays what arrives to all tabs.
 */
import type { ConnectionState } from "./sse-client";

/** What a tab follows live. */
export type LiveSpec =
  | { type: "global" }
  | { type: "session"; backendId: string; sessionId: string }
  | { type: "share"; token: string };

/** One tab's subscription as the leader sees it: the spec, and the seq the tab has applied up to. */
export interface WantedSub {
  id: string;
  spec: LiveSpec;
  cursor?: number;
}

/** One relayed frame: [spec id, data, SSE id]. */
export type RelayedFrame = [specId: string, data: string, id: string | undefined];

export type LiveMessage =
  /** A tab's whole set of subscriptions (sent on every change and when a new leader asks). */
  | { t: "want"; tab: string; subs: WantedSub[] }
  /** A tab is going away. */
  | { t: "bye"; tab: string }
  /** A tab became the leader: every tab sends its `want` again. */
  | { t: "leader"; tab: string }
  /** Frames from the stream, for every tab (or, for a replay, for one tab only). */
  | { t: "frames"; frames: RelayedFrame[]; to?: string }
  /** The tab must reload what it follows (`stream.reset` semantics), e.g. its cursor is not held. */
  | { t: "reset"; id: string; reason: string; to?: string }
  /** The server ended the subscription (session deleted, backend removed, share over). */
  | { t: "closed"; id: string }
  /** The server refused the subscription. */
  | { t: "error"; id: string; status: number; message: string; to?: string }
  /** The state of the leader's connection. */
  | { t: "state"; state: ConnectionState; detail?: string }
  /** The console login is gone. */
  | { t: "unauthorized" }
  /** A tab asks the leader to drop its connection and resume (the user clicked the live badge). */
  | { t: "reconnect" };

export function specId(spec: LiveSpec): string {
  switch (spec.type) {
    case "global":
      return "global";
    case "session":
      return `session ${JSON.stringify([spec.backendId, spec.sessionId])}`;
    case "share":
      return `share ${JSON.stringify(spec.token)}`;
  }
}

/** The seq of a relayed frame (its SSE id), when it has one. */
export function frameSeq(id: string | undefined): number | undefined {
  if (id === undefined || !/^\d{1,16}$/.test(id)) return undefined;
  return Number(id);
}
