import "server-only";
import { createParser } from "eventsource-parser";
import { streamFetch } from "./timed-fetch";

/** How `/api/event` is read: until `signal` aborts, resuming after `lastEventId` when given. */
export interface ApiEventsOptions {
  signal: AbortSignal;
  lastEventId?: string;
  /** Every chunk (heartbeats included, for the watchdog). */
  onChunk(): void;
  /** Every parsed frame (a frame that is not JSON is skipped). */
  onFrame(frame: unknown, id: string | undefined): void;
}

/** Reads the server-sent events of `/api/event` at `url` (./api-backend.ts `events`) until the stream ends. */
export async function readApiEvents(
  url: string,
  headers: Record<string, string>,
  opts: ApiEventsOptions,
): Promise<void> {
  // Over node:http, aborted by the signal for certain (./timed-fetch.ts, `streamFetch`).
  const res = await streamFetch(opts.signal)(url, {
    headers: {
      ...headers,
      accept: "text/event-stream",
      ...(opts.lastEventId ? { "last-event-id": opts.lastEventId } : {}),
    },
    signal: opts.signal,
  });
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new Error(`GET /api/event answered ${res.status}`);
  }
  const parser = createParser({
    onEvent: (ev) => {
      let frame: unknown;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      opts.onFrame(frame, ev.id);
    },
  });
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    opts.onChunk();
    parser.feed(decoder.decode(value, { stream: true }));
  }
}
