import "server-only";
import { ApiError, describeError, isApiError } from "../errors";
import type { SseSink } from "../hub/sse";
import { log } from "../log";
import { type ForwardTarget, type ReplicaSelf, replicaFetch } from "./forward";

const encoder = new TextEncoder();

/**
 * A session's events from the replica that runs its backend, for a browser's live stream held on
 * this one (server/live.ts): the owner's `GET …/events` from the browser's cursor, its frames passed
 * on byte for byte (the `id:` is the owner's `seq`, so the cursor means the same everywhere). Opened
 * before the subscription is added, so an unknown session is the subscription's error, not a stream
 * that ends at once.
 */
export interface RemoteSession {
  attach(sink: SseSink, lost: () => void): () => void;
}

export function openRemoteSession(opts: {
  target: ForwardTarget;
  backendId: string;
  sessionId: string;
  after: number | undefined;
  self: ReplicaSelf;
}): Promise<RemoteSession> {
  const path = `/api/backends/${encodeURIComponent(opts.backendId)}/sessions/${encodeURIComponent(opts.sessionId)}/events`;
  return openRemoteStream({ ...opts, path });
}

/** Any of the owner's event streams (a session's, a share's public one), from `after`, passed on byte for byte. */
export async function openRemoteStream(opts: {
  target: ForwardTarget;
  path: string;
  after: number | undefined;
  self: ReplicaSelf;
}): Promise<RemoteSession> {
  const ac = new AbortController();
  const path = opts.path;
  let res: Response;
  try {
    // Signed for the owner with the replicas' key (never the console token), only to an allowed peer.
    res = await replicaFetch(opts.self, opts.target, path, {
      headers: {
        accept: "text/event-stream",
        ...(opts.after !== undefined ? { "last-event-id": String(opts.after) } : {}),
      },
      signal: ac.signal,
    });
  } catch (err) {
    if (isApiError(err)) throw err;
    log.warn("could not follow a session on the replica that runs it", {
      replica: opts.target.replicaId,
      error: describeError(err),
    });
    throw new ApiError("backend_down", "The replica that runs this backend does not answer; try again");
  }
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => undefined)) as
      | { error?: { code?: ApiError["code"]; message?: string } }
      | undefined;
    ac.abort();
    throw new ApiError(body?.error?.code ?? "upstream_failed", body?.error?.message ?? `HTTP ${res.status}`);
  }
  const body = res.body;
  return {
    attach(sink, lost) {
      let detached = false;
      void (async () => {
        const reader = body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            buf += value;
            let i: number;
            while ((i = buf.indexOf("\n\n")) >= 0) {
              const frame = buf.slice(0, i);
              buf = buf.slice(i + 2);
              // Heartbeats and `retry:` lines are this replica's own to send.
              if (!/^data:/m.test(frame)) continue;
              if (!sink.write(encoder.encode(`${frame}\n\n`))) {
                ac.abort();
                return;
              }
            }
          }
        } catch {
          // aborted (detached) or the owner went away
        }
        // The owner ended the stream (it stopped running the backend, or died): the browser reopens
        // its live stream with its cursors and lands on the new owner.
        if (!detached) lost();
      })();
      return () => {
        detached = true;
        ac.abort();
      };
    },
  };
}
