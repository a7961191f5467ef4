import "server-only";
import type { GlobalHello, LiveSubscription, LiveSubscriptionResult } from "@/lib/api";
import type { GlobalEvent } from "@/lib/model";
import type { BackendRegistry } from "./backends/registry";
import { ApiError, describeError, isApiError } from "./errors";
import { log } from "./log";
import { MuxRegistry, type MuxStream } from "./hub/mux";
import { app } from "./routes";
import { shareClient, shares } from "./shares";

const g = globalThis as typeof globalThis & { __switchboardLive?: MuxRegistry };

/** The open live streams (one per browser), kept on globalThis like the app. */
export function liveStreams(): MuxRegistry {
  return (g.__switchboardLive ??= new MuxRegistry());
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
 * are. Global and session subscriptions need the console login; shares need only their token.
 */
export async function setSubscriptions(
  stream: MuxStream,
  wanted: Record<string, LiveSubscription>,
  ctx: { loggedIn: boolean; headers: Headers },
): Promise<Record<string, LiveSubscriptionResult>> {
  for (const key of stream.keys()) if (!(key in wanted)) stream.remove(key);
  const results: Record<string, LiveSubscriptionResult> = {};
  const { hub, backends } = await app();
  await Promise.all(
    Object.entries(wanted).map(async ([key, spec]) => {
      const fp = fingerprint(spec);
      if (stream.holds(key, fp)) {
        results[key] = { ok: true };
        return;
      }
      try {
        if (spec.type !== "share" && !ctx.loggedIn) throw new ApiError("unauthorized", "Log in to the console to follow its sessions");
        if (spec.type === "global") {
          stream.add(key, fp, (sink) => hub.subscribeGlobal(sink, globalHello(backends), spec.after));
        } else if (spec.type === "session") {
          backends.require(spec.backendId);
          const channel = await hub.open(spec.backendId, spec.sessionId);
          if (stream.closed) return;
          stream.add(key, fp, (sink) => channel.subscribe(sink, spec.after));
        } else {
          const svc = await shares();
          const share = svc.resolve(spec.token, shareClient(ctx.headers));
          const attach = await svc.attacher(share, spec.after);
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
