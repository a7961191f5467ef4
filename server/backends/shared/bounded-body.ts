import "server-only";

/**
 * Bounds on what a backend's server may make the console read (docs/security.md, "Bounded
 * answers"): a body by its size, a Server-Sent Events stream by the length of one line and of one
 * event, and no redirect followed. A body over its bound fails the read with `BodyLimitError` and
 * the connection is dropped (cancelling the stream cancels its source), so a hostile or broken
 * server costs the console at most the bound, never its memory. Used by the A2A client
 * (../a2a/bounded-fetch.ts) and the OpenCode clients (../opencode/timed-fetch.ts).
 */

/** A body went over its bound, or the server redirected: the call is refused. */
export class BodyLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BodyLimitError";
  }
}

/** Makes the error a bound fails with (a backend may want its own subclass). */
export type LimitErrorFactory = (message: string) => Error;
const defaultError: LimitErrorFactory = (m) => new BodyLimitError(m);

/** `n` bytes as the bounds are written in messages and docs. */
export function sizeLabel(n: number): string {
  return n >= 1024 * 1024 && n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${Math.round(n / 1024)} KiB`;
}

/** A body limited to `max` bytes in all. */
export function limitBytes(
  body: ReadableStream<Uint8Array>,
  max: number,
  what: string,
  error: LimitErrorFactory = defaultError,
  label: (n: number) => string = sizeLabel,
): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > max) ctl.error(error(`${what} is larger than ${label(max)}`));
        else ctl.enqueue(chunk);
      },
    }),
  );
}

/**
 * An SSE body whose lines are at most `maxLine` bytes and whose events at most `maxEvent` bytes;
 * `what` names the stream in the error ("The agent's event stream").
 */
export function limitSse(
  body: ReadableStream<Uint8Array>,
  maxLine: number,
  maxEvent: number,
  what: string,
  error: LimitErrorFactory = defaultError,
  label: (n: number) => string = sizeLabel,
): ReadableStream<Uint8Array> {
  let line = 0;
  let event = 0;
  let lastCr = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i]!;
          if (b === 0x0a || b === 0x0d) {
            // "\r\n" is one line end; an empty line ends the event.
            if (!(b === 0x0a && lastCr)) {
              if (line === 0) event = 0;
              line = 0;
            }
            lastCr = b === 0x0d;
            continue;
          }
          lastCr = false;
          line++;
          event++;
          if (line > maxLine) return ctl.error(error(`${what} sent a line longer than ${label(maxLine)}`));
          if (event > maxEvent) return ctl.error(error(`${what} sent an event larger than ${label(maxEvent)}`));
        }
        ctl.enqueue(chunk);
      },
    }),
  );
}

/** Statuses whose Response may not have a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `res` with its body replaced by `bound(body)`. The length is kept when the body is the bytes
 * that were sent (clients read `Content-Length: 0` as "no body"); after a decompression it says
 * nothing the reader may rely on, and it goes with the encoding.
 */
export function withBody(
  res: Response,
  bound: (body: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>,
): Response {
  if (!res.body || NULL_BODY.has(res.status)) return res;
  const headers = new Headers(res.headers);
  if (headers.has("content-encoding")) {
    headers.delete("content-length");
    headers.delete("content-encoding");
  }
  return new Response(bound(res.body), { status: res.status, statusText: res.statusText, headers });
}

/** Whether `res` is a redirect (3xx with a Location): the bounded fetches refuse those. */
export function isRedirect(res: { status: number; headers: Headers }): boolean {
  return res.status >= 300 && res.status < 400 && res.headers.has("location");
}

/** Reads a whole body as text within `max` bytes, or fails with the bound's error. */
export async function readText(
  res: Response,
  max: number,
  what: string,
  error: LimitErrorFactory = defaultError,
  label: (n: number) => string = sizeLabel,
): Promise<string> {
  if (!res.body) return "";
  const reader = limitBytes(res.body, max, what, error, label).getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The `BodyLimitError` in `err`'s cause chain, if any. */
export function limitErrorIn(err: unknown): BodyLimitError | undefined {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof BodyLimitError) return e;
  return undefined;
}
