import "server-only";
import {
  LiveSubscriptionsBody,
  type GlobalHello,
  type LiveSubscription,
  type LiveSubscriptionResult,
  type LiveSubscriptionsResult,
} from "@/lib/api";
import type { GlobalEvent } from "@/lib/model";
import type { BackendRegistry } from "./backends/registry";
import { ApiError, describeError, isApiError } from "./errors";
import { log } from "./log";
import { type EventsOpener, json, readBody } from "./http";
import type { MuxStream } from "./hub/mux";
import { liveStreams, type LiveScope } from "./live-streams";
import { sseResponse } from "./hub/sse";
import { app } from "./app-access";
import { acquireShareStream, shareClient, shareStreamIdleMs, shares } from "./shares";

export { liveStreams, type LiveScope } from "./live-streams";
/** Live streams open in both scopes. */
export function liveStreamCount(): number {
  return liveStreams("console").size + liveStreams("share").size;
}

/** The first frame of the global channel for a subscriber that has no held cursor. */
export function globalHello(backends: BackendRegistry): GlobalEvent {
  return { type: "hello", backends: backends.list(), interrupts: backends.pendingInterrupts() };
}

/** What a tab starts from before it follows the global channel after `seq`. */
export async function readGlobalHello(): Promise<GlobalHello> {
  const { hub, backends } = await app();
  // A page (re)loaded: backends without replay re-read what is pending; what they find follows on the stream.
  backends.refreshInterrupts();
  return { seq: hub.globalCursor, backends: backends.list(), interrupts: backends.pendingInterrupts() };
}

/** A subscription's identity without its cursor: the same spec under the same key is left alone. */
function fingerprint(s: LiveSubscription): string {
  switch (s.type) {
    case "global":
      return "global";
    case "session":
      return `session\u0000${s.backendId}\u0000${s.sessionId}`;
    case "share":
      return `share\u0000${s.token}`;
  }
}

function failure(err: unknown): LiveSubscriptionResult {
  if (isApiError(err)) return { ok: false, status: err.status, code: err.code, message: err.message };
  log.warn("live subscription failed", { error: describeError(err) });
  return { ok: false, status: 500, code: "internal", message: "Internal error" };
}

/**
 * Makes a live stream carry exactly `wanted`: keys no longer wanted are detached, new keys (or keys
 * whose spec changed) are attached and replay from their cursor, keys already held are left as they
 * are. A share page's stream carries shares only; the console's (behind the login) carries anything.
 */
export async function setSubscriptions(
  stream: MuxStream,
  wanted: Record<string, LiveSubscription>,
  ctx: { scope: LiveScope; headers: Headers },
): Promise<Record<string, LiveSubscriptionResult>> {
  for (const key of stream.keys()) if (!(key in wanted)) stream.remove(key);
  const results: Record<string, LiveSubscriptionResult> = {};
  const { hub, backends, sessions } = await app();
  await Promise.all(
    Object.entries(wanted).map(async ([key, spec]) => {
      const fp = fingerprint(spec);
      if (stream.holds(key, fp)) {
        results[key] = { ok: true };
        return;
      }
      try {
        if (spec.type !== "share" && ctx.scope !== "console")
          throw new ApiError("forbidden", "A share page's stream carries shares only");
        if (spec.type === "global") {
          stream.add(key, fp, (sink) => hub.subscribeGlobal(sink, globalHello(backends), spec.after));
        } else if (spec.type === "session") {
          backends.require(spec.backendId);
          // This console's channel, or (replica mode) the stream of the console that runs the backend:
          // when a followed stream ends (it moved or died), the whole live stream is closed, and the
          // browser reopens it with its cursors. While a backend changes hands, this waits.
          const feed = await sessions.open(spec.backendId, spec.sessionId, spec.after);
          if (stream.closed) return;
          if (feed.channel) {
            const channel = feed.channel;
            stream.add(key, fp, (sink) => channel.subscribe(sink, spec.after));
          } else {
            const followed = feed.followed;
            stream.add(key, fp, (sink) => followed.attach(sink, () => stream.sink.close()));
          }
        } else {
          const svc = await shares();
          const share = svc.resolve(spec.token, shareClient(ctx.headers));
          const attach = await svc.attacher(share, spec.after, spec.token);
          if (stream.closed) return;
          stream.add(key, fp, attach);
        }
        results[key] = { ok: true };
      } catch (err) {
        stream.remove(key);
        results[key] = failure(err);
      }
    }),
  );
  return results;
}

/**
 * `GET …/live`: opens a browser's live stream, empty; its first frame (`mux.open`) names it. A share
 * page's stream is public: it takes a slot of the share stream quota (per client address and in
 * all; 429 beyond) and ends when idle.
 */
export async function openLiveStream(req: Request, scope: LiveScope): Promise<Response> {
  const release = scope === "share" ? await acquireShareStream(req.headers) : undefined;
  const open = liveOpener(scope, release);
  if (!open) {
    release?.();
    throw new ApiError("rate_limited", "Too many live streams are open", { retryAfter: 5 });
  }
  return sseResponse({ signal: req.signal, ...(scope === "share" ? { idleMs: shareStreamIdleMs() } : {}), open });
}

/**
 * What a live stream attaches to (`release` runs when it ends); undefined when this console holds
 * as many of the scope's streams as it may (429). Also served before Next (server/direct-streams.ts).
 */
export function liveOpener(scope: LiveScope, release?: () => void): EventsOpener | undefined {
  const registry = liveStreams(scope);
  if (registry.size >= registry.maxStreams) return undefined;
  return (sink) => {
    const stream = registry.open(sink);
    if (!stream) {
      sink.close();
      return () => release?.();
    }
    return () => {
      registry.close(stream.id);
      release?.();
    };
  };
}

/** `PUT …/live/:streamId`: the whole set of subscriptions the stream carries from now on. */
export async function putLiveSubscriptions(req: Request, scope: LiveScope, streamId: string): Promise<Response> {
  const body = await readBody(req, LiveSubscriptionsBody);
  const stream = liveStreams(scope).get(streamId);
  if (!stream) throw ApiError.notFound("No such live stream (it closed): open a new one");
  const results = await setSubscriptions(stream, body.subscriptions, { scope, headers: req.headers });
  return json({ results } satisfies LiveSubscriptionsResult);
}
