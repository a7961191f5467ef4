import "server-only";
import {
  BodyLimitError,
  isRedirect,
  limitBytes as sharedLimitBytes,
  limitSse as sharedLimitSse,
  readText as sharedReadText,
  withBody,
} from "../shared/bounded-body";

/**
 * The one `fetch` every call to an A2A agent goes through (docs/backends/a2a.md, "Bounds"): the
 * bearer token added here on the server, redirects refused, 401/403 turned into `A2aAuthError`, and
 * every response body bounded while it is read — a JSON answer (the card, a JSON-RPC or REST
 * result) by its size, a Server-Sent Events stream by the length of one line and of one event. A
 * body over its bound fails the read with `A2aLimitError` (the connection is dropped), so a hostile
 * or broken agent costs the console at most the bound, never its memory. The SDK's client is
 * handed this `fetch`; nothing in it speaks the protocol. The bounding itself is shared with the
 * OpenCode clients (../shared/bounded-body.ts).
 */

/** Largest agent card (public or extended). */
export const MAX_CARD_BYTES = 1024 * 1024;
/** Largest JSON answer of a call (a task with its artifacts, a history page). */
export const MAX_JSON_BYTES = 16 * 1024 * 1024;
/** Longest line of an SSE stream. */
export const MAX_SSE_LINE_BYTES = 1024 * 1024;
/** Largest event (its `data:` lines together) of an SSE stream. */
export const MAX_SSE_EVENT_BYTES = 4 * 1024 * 1024;

/** The agent answered HTTP 401 or 403: the token is missing, wrong or revoked. */
export class A2aAuthError extends Error {
  constructor(readonly status: number) {
    super(`The agent refused the token (HTTP ${status})`);
    this.name = "A2aAuthError";
  }
}

/** A body went over its bound, or the agent redirected: the call is refused. */
export class A2aLimitError extends BodyLimitError {
  constructor(message: string) {
    super(message);
    this.name = "A2aLimitError";
  }
}

export interface BoundedFetchOptions {
  token?: string;
  /** The negotiated protocol version, sent as `A2A-Version` on every call that does not carry one. */
  version?: () => string | undefined;
  maxJsonBytes?: number;
  maxLineBytes?: number;
  maxEventBytes?: number;
}

const a2aError = (m: string) => new A2aLimitError(m);
const kib = (n: number) => `${Math.round(n / 1024)} KiB`;

/** A body limited to `max` bytes in all (../shared/bounded-body.ts). */
export function limitBytes(body: ReadableStream<Uint8Array>, max: number, what: string): ReadableStream<Uint8Array> {
  return sharedLimitBytes(body, max, what, a2aError, kib);
}

/** An SSE body whose lines are at most `maxLine` bytes and whose events at most `maxEvent` bytes. */
export function limitSse(
  body: ReadableStream<Uint8Array>,
  maxLine: number,
  maxEvent: number,
): ReadableStream<Uint8Array> {
  return sharedLimitSse(body, maxLine, maxEvent, "The agent's event stream", a2aError, kib);
}

function bounded(res: Response, o: BoundedFetchOptions): Response {
  const type = res.headers.get("content-type") ?? "";
  return withBody(res, (body) =>
    /text\/event-stream/i.test(type)
      ? limitSse(body, o.maxLineBytes ?? MAX_SSE_LINE_BYTES, o.maxEventBytes ?? MAX_SSE_EVENT_BYTES)
      : limitBytes(body, o.maxJsonBytes ?? MAX_JSON_BYTES, "The agent's answer"),
  );
}

/** `fetch` for one agent: token, version header, no redirects, bounded bodies (see the file comment). */
export function boundedFetch(o: BoundedFetchOptions = {}): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init?.headers).forEach((v, k) => {
      headers.set(k, v);
    });
    if (o.token) headers.set("authorization", `Bearer ${o.token}`);
    const version = o.version?.();
    if (version && !headers.has("a2a-version")) headers.set("A2A-Version", version);
    const res = await fetch(input, { ...init, headers, redirect: "manual" });
    if (isRedirect(res)) {
      await res.body?.cancel().catch(() => undefined);
      throw new A2aLimitError(
        `The agent answered with a redirect (HTTP ${res.status}), which the console does not follow`,
      );
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel().catch(() => undefined);
      throw new A2aAuthError(res.status);
    }
    return bounded(res, o);
  };
}

/** Reads a whole (already bounded) body as text, or fails with the bound's error. */
export function readText(res: Response, max: number, what: string): Promise<string> {
  return sharedReadText(res, max, what, a2aError, kib);
}
