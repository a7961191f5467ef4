import "server-only";
import type { OpencodeClient } from "@opencode-ai/sdk/v2/client";
import type { BackendStatus } from "@/lib/model";
import { describeError } from "../../errors";
import { log } from "../../log";
import type { EmbeddedOpencode } from "../../processes/opencode-serve";
import type { ApiBackend } from "./api-backend";
import { streamFetch } from "./timed-fetch";

const WATCHDOG_MS = 35_000; // OpenCode sends server.heartbeat every 10 s
/**
 * OpenCode answers `/global/event` with `server.connected` at once. A server that has bound its port
 * but is not ready yet (a restart) accepts the request and never answers it: without this bound the
 * stream would wait out the whole heartbeat watchdog before trying again.
 */
const FIRST_FRAME_MS = 8_000;
const MAX_BACKOFF_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface EventStreamHost {
  backendId: string;
  stopped(): boolean;
  options: {
    embedded?: EmbeddedOpencode;
    /** How long a new event stream may stay silent before it is given up and tried again (tests shorten it). */
    firstFrameMs?: number;
  };
  /** The SDK client of the current server (undefined: not connected yet). */
  client(): OpencodeClient | undefined;
  /** Whether the server's contract is known (else `detect` decides it first). */
  detected(): boolean;
  detect(): Promise<void>;
  /** The `/api` backend, when that is the contract spoken. */
  api(): ApiBackend | undefined;
  /** Points the adapter at the embedded server's new URL. */
  connect(url: string): void;
  setStatus(status: BackendStatus, error?: string): void;
  /** The first frame of a new stream arrived. */
  connected(): Promise<void>;
  /** A V1 `/global/event` frame. */
  frame(frame: unknown): void;
  /** An `/api/event` frame. */
  apiFrame(frame: unknown): void;
  /** A stream that had connected is lost. */
  lost(): void;
}

/**
 * OpenCode's event stream, one per server (docs/architecture.md): the SDK's SSE client (or the
 * `/api/event` reader) is used for one connection at a time and this loop reconnects with backoff;
 * a new stream that sends nothing in time is given up, and a watchdog drops one gone silent.
 */
export class EventStream {
  private abortController: AbortController | undefined;
  private loop: Promise<void> | undefined;
  /** The id of the last `/api/event` frame, sent back as Last-Event-ID on a reconnect. */
  private lastEventId: string | undefined;

  constructor(private host: EventStreamHost) {}

  /** Runs the loop, unless it already runs. */
  start(): void {
    this.loop ??= this.run().finally(() => (this.loop = undefined));
  }

  /** Drops the current connection (a stopped adapter's loop then ends). */
  abort(): void {
    this.abortController?.abort();
  }

  private async run(): Promise<void> {
    let attempt = 0;
    // A server that answers slowly (a loaded machine, a cold start) is given longer each time the
    // first frame is late, so a bound set too tight for it cannot keep the stream from ever opening.
    let firstFrameLate = 0;
    while (!this.host.stopped()) {
      const client = this.host.client();
      if (this.host.options.embedded && !this.host.options.embedded.url) {
        this.host.setStatus("down", "opencode is restarting");
        const url = await this.host.options.embedded.whenReady();
        this.host.connect(url);
        continue;
      }
      if (!client) return;
      const ac = new AbortController();
      this.abortController = ac;
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      const kick = (ms: number, why: string) => {
        if (watchdog) clearTimeout(watchdog);
        watchdog = setTimeout(() => ac.abort(new Error(why)), ms);
      };
      let lastError: string | undefined;
      let connected = false;
      /** The stream's first frame: it counts as connected, and the backoff starts over. */
      const opened = (): boolean => {
        if (connected) return false;
        connected = true;
        attempt = 0;
        firstFrameLate = 0;
        return true;
      };
      try {
        // Not reachable yet, or not answering: this counts as a failed connection and is retried.
        if (!this.host.detected()) await this.host.detect();
        const firstFrameMs = Math.min(
          WATCHDOG_MS,
          (this.host.options.firstFrameMs ?? FIRST_FRAME_MS) * (1 + firstFrameLate),
        );
        kick(firstFrameMs, "opencode accepted the event stream but sent nothing (still starting?)");
        log.debug("opening the opencode event stream", { backend: this.host.backendId, attempt, firstFrameMs });
        const api = this.host.api();
        if (api) {
          await api.events({
            signal: ac.signal,
            ...(this.lastEventId ? { lastEventId: this.lastEventId } : {}),
            onChunk: () => kick(WATCHDOG_MS, "no heartbeat from opencode"),
            onFrame: (frame, id) => {
              if (id) this.lastEventId = id;
              if (opened()) void this.host.connected();
              this.host.apiFrame(frame);
            },
          });
          throw new Error("the /api event stream ended");
        }
        const { stream } = await client.global.event({
          signal: ac.signal,
          // Bounded by line and event, and cut one event per chunk (./timed-fetch.ts).
          fetch: streamFetch(ac.signal, { wholeEvents: true }),
          sseMaxRetryAttempts: 1,
          onSseError: (err: unknown) => {
            lastError = describeError(err);
          },
        });
        for await (const frame of stream) {
          kick(WATCHDOG_MS, "no heartbeat from opencode");
          if (opened()) await this.host.connected();
          this.host.frame(frame);
        }
      } catch (err) {
        lastError = describeError(err);
      } finally {
        if (watchdog) clearTimeout(watchdog);
      }
      if (this.host.stopped()) return;
      // Only the watchdog aborts a stream (a stop returned above): unconnected, its first frame was late.
      if (!connected && ac.signal.aborted) firstFrameLate++;
      if (connected) this.host.lost();
      const wait = Math.min(MAX_BACKOFF_MS, 250 * 2 ** attempt++);
      this.host.setStatus(
        attempt > 2 ? "down" : "connecting",
        lastError ? `Event stream lost: ${lastError}` : "Event stream closed",
      );
      log.warn("opencode event stream lost; reconnecting", {
        backend: this.host.backendId,
        error: lastError,
        inMs: wait,
      });
      await sleep(wait);
    }
  }
}
