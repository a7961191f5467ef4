import "server-only";

const encoder = new TextEncoder();

export function encodeFrame(id: number | string | undefined, data: unknown): Uint8Array {
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  return encoder.encode(`${idLine}data: ${JSON.stringify(data)}\n\n`);
}

export interface SseSink {
  /** Queue a pre-encoded frame. Returns false (and closes the stream) when the consumer is too slow. */
  write(frame: Uint8Array): boolean;
  /**
   * At most this many bytes of backlog may be replayed into a new subscriber; a bigger backlog gets
   * `stream.reset` (reload the snapshot) instead — replaying it would only get the subscriber dropped,
   * and it would resume from the same point and be dropped again, forever.
   */
  readonly replayBudget?: number;
  close(): void;
  readonly closed: boolean;
}

export interface SseOptions {
  signal?: AbortSignal;
  heartbeatMs?: number;
  /** Bytes that may wait for a slow consumer before it is dropped (it resumes with Last-Event-ID). */
  maxQueueBytes?: number;
  /**
   * Ends the stream when nothing but heartbeats went out for this long (checked at each heartbeat):
   * public share streams, so idle connections do not hold their slots forever. The browser reopens
   * a stream that ended and resumes from its cursor.
   */
  idleMs?: number;
  /** Called once the sink exists; returns the cleanup to run when the stream ends. */
  open(sink: SseSink): () => void;
}

const HEARTBEAT = encoder.encode(": heartbeat\n\n");
/**
 * A consumer that owes no more than this is "caught up": it may take one frame bigger than the queue
 * (a whole 5 MB block), which it could otherwise never receive. The ring log holds that frame anyway.
 */
const CAUGHT_UP_BYTES = 64 * 1024;
const RETRY = encoder.encode("retry: 1000\n\n");

const counter = globalThis as typeof globalThis & { __switchboardOpenStreams?: number };
/** Event-stream responses open right now, of every kind (`GET /api/events/stats`). */
export function openStreamCount(): number {
  return counter.__switchboardOpenStreams ?? 0;
}

/** A `text/event-stream` Response with heartbeats and a bounded per-subscriber queue (docs/api.md, "Event stream"). */
export function sseResponse(opts: SseOptions): Response {
  const maxQueueBytes = opts.maxQueueBytes ?? 4 * 1024 * 1024;
  let cleanup: (() => void) | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  let counted = false;
  // Idleness is judged at each heartbeat (did a frame go out since the last one?), so a frame
  // written costs no clock read (Next's server wraps Date.now() with two AsyncLocalStorage lookups
  // per call, its IO tracking; every frame to every subscriber paid for one here). A stream ends
  // idle between `idleMs` and `idleMs + heartbeatMs` after its last frame.
  let wrote = false;
  let quietSince = performance.now();
  const finish = () => {
    if (counted) {
      counted = false;
      counter.__switchboardOpenStreams = openStreamCount() - 1;
    }
    if (timer) clearInterval(timer);
    timer = undefined;
    const c = cleanup;
    cleanup = undefined;
    c?.();
  };

  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  /** Bytes enqueued and not yet read by the consumer, as of the current batch's first frame. */
  let queued = 0;
  let ctrl: ReadableStreamDefaultController<Uint8Array> | undefined;
  const flush = () => {
    if (!ctrl || closed || batch.length === 0) return;
    const frames = batch;
    batch = [];
    batchBytes = 0;
    if (frames.length === 1) {
      ctrl.enqueue(frames[0]!);
      return;
    }
    let size = 0;
    for (const f of frames) size += f.byteLength;
    const out = new Uint8Array(size);
    let o = 0;
    for (const f of frames) {
      out.set(f, o);
      o += f.byteLength;
    }
    ctrl.enqueue(out);
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        ctrl = controller;
        counted = true;
        counter.__switchboardOpenStreams = openStreamCount() + 1;
        const sink: SseSink = {
          get closed() {
            return closed;
          },
          replayBudget: maxQueueBytes - CAUGHT_UP_BYTES,
          write(frame) {
            if (closed) return false;
            wrote = true;
            // What the consumer owes changes only when it reads (between ticks) or a batch is
            // flushed: read it once per batch, not once per frame (a replay writes thousands).
            if (batch.length === 0) queued = maxQueueBytes - (controller.desiredSize ?? 0);
            const owed = queued + batchBytes;
            if (owed > CAUGHT_UP_BYTES && owed + frame.byteLength > maxQueueBytes) {
              // The consumer stopped reading: drop it rather than grow memory.
              closed = true;
              batch = [];
              finish();
              try {
                controller.error(new Error("subscriber too slow"));
              } catch {}
              return false;
            }
            // Frames written in the same tick go out as one chunk: far less per-chunk overhead.
            batch.push(frame);
            batchBytes += frame.byteLength;
            if (batch.length === 1) queueMicrotask(flush);
            return true;
          },
          close() {
            if (closed) return;
            flush();
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
          if (opts.idleMs !== undefined) {
            const now = performance.now();
            if (wrote) {
              wrote = false;
              quietSince = now;
            } else if (now - quietSince >= opts.idleMs) {
              sink.close();
              return;
            }
          }
          if (!closed && batch.length === 0 && (controller.desiredSize ?? 0) > 0) controller.enqueue(HEARTBEAT);
        }, opts.heartbeatMs ?? 10_000);
        opts.signal?.addEventListener("abort", () => sink.close(), { once: true });
      },
      cancel() {
        closed = true;
        finish();
      },
    },
    { highWaterMark: maxQueueBytes, size: (chunk) => chunk.byteLength },
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
