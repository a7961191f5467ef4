import "server-only";

const encoder = new TextEncoder();

export function encodeFrame(id: number | string | undefined, data: unknown): Uint8Array {
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  return encoder.encode(`${idLine}data: ${JSON.stringify(data)}\n\n`);
}

export interface SseSink {
  /** Queue a pre-encoded frame. Returns false (and closes the stream) when the consumer is too slow. */
  write(frame: Uint8Array): boolean;
  close(): void;
  readonly closed: boolean;
}

export interface SseOptions {
  signal?: AbortSignal;
  heartbeatMs?: number;
  /** Frames that may wait for a slow consumer before it is dropped (it resumes with Last-Event-ID). */
  maxQueue?: number;
  /** Called once the sink exists; returns the cleanup to run when the stream ends. */
  open(sink: SseSink): () => void;
}

const HEARTBEAT = encoder.encode(": heartbeat\n\n");
const RETRY = encoder.encode("retry: 1000\n\n");

/** A `text/event-stream` Response with heartbeats and a bounded per-subscriber queue (SPEC.md §6). */
export function sseResponse(opts: SseOptions): Response {
  const maxQueue = opts.maxQueue ?? 2000;
  let cleanup: (() => void) | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const finish = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    const c = cleanup;
    cleanup = undefined;
    c?.();
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const sink: SseSink = {
          get closed() {
            return closed;
          },
          write(frame) {
            if (closed) return false;
            if ((controller.desiredSize ?? 0) <= 0) {
              // The consumer stopped reading: drop it rather than grow memory.
              closed = true;
              finish();
              try {
                controller.error(new Error("subscriber too slow"));
              } catch {}
              return false;
            }
            controller.enqueue(frame);
            return true;
          },
          close() {
            if (closed) return;
            closed = true;
            finish();
            try {
              controller.close();
            } catch {}
          },
        };
        controller.enqueue(RETRY);
        cleanup = opts.open(sink);
        if (closed) finish();
        timer = setInterval(() => {
          if (!closed && (controller.desiredSize ?? 0) > 0) controller.enqueue(HEARTBEAT);
        }, opts.heartbeatMs ?? 10_000);
        opts.signal?.addEventListener("abort", () => sink.close(), { once: true });
      },
      cancel() {
        closed = true;
        finish();
      },
    },
    { highWaterMark: maxQueue, size: () => 1 },
  );

  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
