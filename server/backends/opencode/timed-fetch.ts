import "server-only";
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

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
export function createTimedFetch(timeoutMs: number): typeof fetch {
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
      return await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        redirect: req.redirect,
        signal: ac.signal,
        ...(body !== undefined ? { body } : {}),
      });
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
 * on `signal` itself.
 */
export function streamFetch(signal: AbortSignal): typeof fetch {
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
        resolve(
          new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, {
            status: res.statusCode ?? 502,
            statusText: res.statusMessage ?? "",
            headers: out,
          }),
        );
      });
      request.end();
    });
}
