import "server-only";
import type { ServerResponse } from "node:http";

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

/** The headers of every event stream the console answers. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** Where a stream's bytes go: a web `ReadableStream` (a route's Response) or a Node response. */
interface SseTransport {
  /** Bytes written that the consumer has not taken yet. */
  owed(): number;
  write(chunk: Uint8Array): void;
  end(): void;
  /** Drops a consumer that stopped reading. */
  fail(): void;
}

/**
 * One event stream, whatever carries it: frames written in the same tick go out as one chunk, a
 * consumer that owes more than `maxQueueBytes` is dropped, heartbeats keep proxies from closing an
 * idle connection, and a stream with `idleMs` ends when nothing but heartbeats went out for that
 * long. Returns what to call when the consumer goes away.
 */
function startStream(opts: SseOptions, t: SseTransport): () => void {
  const maxQueueBytes = opts.maxQueueBytes ?? 4 * 1024 * 1024;
  let cleanup: (() => void) | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  counter.__switchboardOpenStreams = openStreamCount() + 1;
  let counted = true;
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
  /** Bytes written and not yet taken by the consumer, as of the current batch's first frame. */
  let queued = 0;
  const flush = () => {
    if (closed || batch.length === 0) return;
    const frames = batch;
    batch = [];
    batchBytes = 0;
    if (frames.length === 1) {
      t.write(frames[0]!);
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
    t.write(out);
  };

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
      if (batch.length === 0) queued = t.owed();
      const owed = queued + batchBytes;
      if (owed > CAUGHT_UP_BYTES && owed + frame.byteLength > maxQueueBytes) {
        // The consumer stopped reading: drop it rather than grow memory.
        closed = true;
        batch = [];
        finish();
        t.fail();
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
      t.end();
    },
  };
  t.write(RETRY);
  cleanup = opts.open(sink);
  if (closed) finish();
  else {
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
      if (!closed && batch.length === 0 && t.owed() < maxQueueBytes) t.write(HEARTBEAT);
    }, opts.heartbeatMs ?? 10_000);
    opts.signal?.addEventListener("abort", () => sink.close(), { once: true });
  }
  return () => {
    if (closed) return;
    closed = true;
    finish();
  };
}

/** A `text/event-stream` Response with heartbeats and a bounded per-subscriber queue (docs/api.md, "Event stream"). */
export function sseResponse(opts: SseOptions): Response {
  const maxQueueBytes = opts.maxQueueBytes ?? 4 * 1024 * 1024;
  let gone: (() => void) | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        gone = startStream(opts, {
          owed: () => maxQueueBytes - (controller.desiredSize ?? 0),
          write: (chunk) => controller.enqueue(chunk),
          end: () => {
            try {
              controller.close();
            } catch {}
          },
          fail: () => {
            try {
              controller.error(new Error("subscriber too slow"));
            } catch {}
          },
        });
      },
      cancel() {
        gone?.();
      },
    },
    { highWaterMark: maxQueueBytes, size: (chunk) => chunk.byteLength },
  );
  return new Response(stream, { headers: SSE_HEADERS });
}

/**
 * The same stream written straight into a Node response (server/direct-streams.ts: the live and
 * event streams served before Next's request pipeline), with `headers` over the event-stream ones.
 */
export function sseToNode(
  res: ServerResponse,
  opts: Omit<SseOptions, "signal">,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  const gone = startStream(opts, {
    owed: () => res.writableLength,
    write: (chunk) => void res.write(chunk),
    end: () => void res.end(),
    fail: () => void res.destroy(),
  });
  res.once("close", gone);
}
