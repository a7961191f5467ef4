/**
 * A resumable Server-Sent Events client over fetch + eventsource-parser. Reconnects with backoff and
 * resumes with `Last-Event-ID`, so no event is lost or applied twice across reconnects (docs/api.md,
 * "Event streams"). The console's pages use it for their one tab-shared live stream
 * (lib/client/live-leader.ts), which resumes by re-sending its cursors instead (`resume: false`).
 */
import { createParser } from "eventsource-parser";

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "closed";

export interface SseClientOptions {
  url: string;
  /** The seq to resume after (from a snapshot). */
  lastEventId?: string;
  /** Send `Last-Event-ID` when reconnecting (default true). */
  resume?: boolean;
  onEvent(data: string, id: string | undefined, event: string | undefined): void;
  onState?(state: ConnectionState, detail?: string): void;
  /** The login is gone (401): the stream stops; the app sends the browser to the login page. */
  onUnauthorized?(): void;
  /** No byte for this long (heartbeats come every 10 s) → reconnect. */
  idleTimeoutMs?: number;
}

export interface SseClient {
  close(): void;
  /** The id of the last event received. */
  readonly lastEventId: string | undefined;
  /** Drop the connection now and resume (used by tests and after sleep/wake). */
  reconnect(): void;
}

export function connectSse(opts: SseClientOptions): SseClient {
  let lastEventId = opts.lastEventId;
  let closed = false;
  let attempt = 0;
  let current: AbortController | undefined;
  let retryMs = 1000;

  const run = async () => {
    while (!closed) {
      const ac = new AbortController();
      current = ac;
      let idle: ReturnType<typeof setTimeout> | undefined;
      const kick = () => {
        if (idle) clearTimeout(idle);
        idle = setTimeout(() => ac.abort(), opts.idleTimeoutMs ?? 35_000);
      };
      let detail: string | undefined;
      try {
        opts.onState?.(attempt === 0 ? "connecting" : "reconnecting");
        kick();
        const res = await fetch(opts.url, {
          headers: {
            accept: "text/event-stream",
            ...(lastEventId !== undefined && opts.resume !== false ? { "last-event-id": lastEventId } : {}),
          },
          cache: "no-store",
          signal: ac.signal,
        });
        if (!res.ok || !res.body) {
          detail = `HTTP ${res.status}`;
          if (res.status === 404 || res.status === 401 || res.status === 403) {
            if (res.status === 401) opts.onUnauthorized?.();
            opts.onState?.("closed", detail);
            return;
          }
          throw new Error(detail);
        }
        attempt = 0;
        opts.onState?.("connected");
        const parser = createParser({
          onEvent(ev) {
            if (ev.id !== undefined) lastEventId = ev.id;
            opts.onEvent(ev.data, ev.id, ev.event);
          },
          onRetry(ms) {
            retryMs = ms;
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          kick();
          parser.feed(value);
        }
      } catch (err) {
        detail = err instanceof Error ? err.message : String(err);
      } finally {
        if (idle) clearTimeout(idle);
      }
      if (closed) return;
      attempt++;
      opts.onState?.("reconnecting", detail);
      const wait = Math.min(10_000, retryMs * Math.min(8, 2 ** (attempt - 1))) * (0.75 + Math.random() * 0.5);
      await new Promise((r) => setTimeout(r, attempt === 1 ? Math.min(wait, 300) : wait));
    }
  };
  void run();

  return {
    close() {
      closed = true;
      current?.abort();
      opts.onState?.("closed");
    },
    get lastEventId() {
      return lastEventId;
    },
    reconnect() {
      current?.abort();
    },
  };
}
