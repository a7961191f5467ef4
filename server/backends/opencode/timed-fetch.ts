import "server-only";
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { BodyLimitError, isRedirect, limitBytes, limitSse, withBody } from "../shared/bounded-body";

/*
 * What an OpenCode server may make the console read (docs/backends/opencode.md, "Bounds"; the
 * bounding itself is ../shared/bounded-body.ts, shared with A2A). A body over its bound fails the
 * read and drops the connection; a redirect is refused on every call.
 */

/** Largest OpenAPI document (`GET /doc`, read to choose the contract; OpenCode's is well under 1 MiB). */
export const MAX_DOC_BYTES = 8 * 1024 * 1024;
/** Largest small JSON answer read outside the SDKs (`/global/health`). */
export const MAX_HEALTH_BYTES = 1024 * 1024;
/**
 * Largest REST answer (a page of a session's messages with their tool outputs and file diffs is
 * the biggest a real server sends).
 */
export const MAX_ANSWER_BYTES = 128 * 1024 * 1024;
/**
 * Longest line, and largest event, of an event stream. OpenCode sends each event as one `data:`
 * line of JSON, and one can be large: a part's update carries a prompt's attached file as a
 * `data:` URL (a prompt may be 12 MB) or an edit's whole file before and after. A stream over the
 * bound is dropped and opened again; the frames lost with it are made up by the reconciliation
 * that follows every reconnect.
 */
export const MAX_EVENT_BYTES = 32 * 1024 * 1024;

const STREAM = "OpenCode's event stream";

/** The error of a redirect: the console never follows one (the credentials would go along). */
export function redirectError(status: number, url: string): BodyLimitError {
  return new BodyLimitError(
    `OpenCode answered ${new URL(url).pathname} with a redirect (HTTP ${status}), which the console does not follow`,
  );
}

export interface TimedFetchBounds {
  maxAnswerBytes?: number;
}

/**
 * The `fetch` the OpenCode clients are built with. The event streams are long-lived and aborted by
 * the adapter's watchdog; every other call gets a timeout (a request that reaches a server between
 * bind and ready hangs forever).
 *
 * Both SDKs hand `fetch` a `Request` whose signal follows the caller's. Node's fetch copies that
 * Request again, and undici holds each copy's link to the signal it follows only weakly: after a
 * garbage collection, aborting the caller's signal no longer reaches the request
 * (nodejs/undici#4068). A watchdog's abort was then lost and the event stream waited forever on a
 * server that had accepted the request and never answered it. So the request is sent again from its
 * parts with a signal made here, and the caller's Request stays referenced until the answer arrives,
 * which keeps the chain from the caller's signal alive.
 */
export function createTimedFetch(timeoutMs: number, bounds: TimedFetchBounds = {}): typeof fetch {
  return async (input, init) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const ac = new AbortController();
    const cancel = () => ac.abort(req.signal.reason);
    if (req.signal.aborted) cancel();
    else req.signal.addEventListener("abort", cancel, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (!isEventStream(req.url)) {
      timer = setTimeout(
        () => ac.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
        timeoutMs,
      );
      timer.unref?.();
    }
    const body = req.body ? await req.arrayBuffer() : undefined;
    try {
      const res = await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        // Never followed (the SDKs ask for "follow"): refused below.
        redirect: "manual",
        signal: ac.signal,
        ...(body !== undefined ? { body } : {}),
      });
      if (isRedirect(res)) {
        await res.body?.cancel().catch(() => undefined);
        throw redirectError(res.status, req.url);
      }
      const sse = /text\/event-stream/i.test(res.headers.get("content-type") ?? "");
      return withBody(res, (b) =>
        sse
          ? limitSse(b, MAX_EVENT_BYTES, MAX_EVENT_BYTES, STREAM)
          : limitBytes(
              b,
              bounds.maxAnswerBytes ?? MAX_ANSWER_BYTES,
              `OpenCode's answer to ${new URL(req.url).pathname}`,
            ),
      );
    } catch (err) {
      if (timer) clearTimeout(timer);
      throw err;
    } finally {
      // Until here the caller's Request (and with it the link from the caller's signal) is held by
      // this frame; once answered, the body is read under the signal made above.
      req.signal.removeEventListener("abort", cancel);
    }
  };
}

const isEventStream = (url: string) => new URL(url).pathname.endsWith("/event");

/**
 * The `fetch` of one event-stream connection, aborted by `signal` for certain. A signal handed to
 * Node's fetch reaches the request through a link undici holds weakly (nodejs/undici#4068): under
 * garbage-collection pressure the watchdog's abort of a stream that a restarting server accepted and
 * never answered was lost, and the stream waited forever (seen in crash.test.ts on a loaded machine).
 * So the stream goes over `node:http` here, and the abort destroys the request, held by a listener
 * on `signal` itself. `node:http` follows no redirect; a 3xx is refused as one. The body is bounded
 * by line and event (`MAX_EVENT_BYTES`) whatever its type says; `wholeEvents` hands it on one whole
 * event per chunk (for the V1 SDK's reader, which scans all it holds at every chunk).
 */
export function streamFetch(signal: AbortSignal, opts: { wholeEvents?: boolean } = {}): typeof fetch {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const req = input instanceof Request ? input : new Request(input, init);
      const url = new URL(req.url);
      const headers: Record<string, string> = {};
      for (const [k, v] of req.headers) headers[k] = v;
      const request = (url.protocol === "https:" ? https : http).request(url, { method: req.method, headers });
      const abort = () => {
        const reason = signal.reason instanceof Error ? signal.reason : new Error("The event stream was aborted");
        request.destroy(reason);
        reject(reason);
      };
      if (signal.aborted) return abort();
      signal.addEventListener("abort", abort, { once: true });
      request.on("close", () => signal.removeEventListener("abort", abort));
      request.on("error", reject);
      request.on("response", (res) => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (Array.isArray(v)) for (const x of v) out.append(k, x);
          else if (v !== undefined) out.set(k, v);
        }
        const status = res.statusCode ?? 502;
        if (isRedirect({ status, headers: out })) {
          res.destroy();
          request.destroy();
          return reject(redirectError(status, req.url));
        }
        const bounded = limitSse(
          Readable.toWeb(res) as ReadableStream<Uint8Array>,
          MAX_EVENT_BYTES,
          MAX_EVENT_BYTES,
          STREAM,
        );
        resolve(
          new Response(opts.wholeEvents ? byEvent(bounded) : bounded, {
            status,
            statusText: res.statusMessage ?? "",
            headers: out,
          }),
        );
      });
      request.end();
    });
}

/**
 * An SSE body re-cut into one chunk per event (an event's lines and the empty line that ends it),
 * so a reader that scans its whole buffer at every chunk scans each event once. What it holds is at
 * most one event, which the bound upstream (`limitSse`) keeps to `MAX_EVENT_BYTES`.
 */
export function byEvent(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let held: Uint8Array[] = [];
  let line = 0;
  let lastCr = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        let from = 0;
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i]!;
          if (b === 0x0a || b === 0x0d) {
            if (!(b === 0x0a && lastCr)) {
              if (line === 0) {
                held.push(chunk.subarray(from, i + 1));
                ctl.enqueue(Buffer.concat(held));
                held = [];
                from = i + 1;
              }
              line = 0;
            }
            lastCr = b === 0x0d;
            continue;
          }
          lastCr = false;
          line++;
        }
        if (from < chunk.length) held.push(chunk.subarray(from));
      },
      flush(ctl) {
        if (held.length) ctl.enqueue(Buffer.concat(held));
      },
    }),
  );
}
