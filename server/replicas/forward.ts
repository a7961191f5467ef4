import "server-only";
import { authenticate } from "../auth/console-auth";
import { ApiError, describeError } from "../errors";
import { log } from "../log";

/** Set on a request one replica forwards to another: such a request is never forwarded again. */
export const FORWARDED_BY = "x-switchboard-forwarded-by";

/** Request headers that belong to the browser's hop or its login, not to the forwarded request. */
const DROPPED_REQUEST = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "cookie",
  "origin",
  "referer",
  "authorization",
  "sec-fetch-site",
  "sec-fetch-mode",
  "sec-fetch-dest",
  "accept-encoding",
]);
/** Answer headers the fetch already undid (decompression, chunking). */
const DROPPED_RESPONSE = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-encoding",
  "content-length",
]);

/** A request another replica sent (the console token, which every replica shares, and its mark). */
export function fromReplica(req: Request): boolean {
  return req.headers.has(FORWARDED_BY) && authenticate(req.headers, undefined) === "bearer";
}

export interface ForwardTarget {
  /** The owner's base URL (`SWITCHBOARD_REPLICA_URL` of that replica). */
  url: string;
  replicaId: string;
}

/**
 * Sends a request for a backend this replica does not run to the replica that does
 * (docs/architecture.md, "Replicas"): same method, path, query and body; the browser's cookie and
 * Origin replaced by the console token, which every replica shares, so the owner's proxy admits it
 * as any API client. The answer streams back as it comes (an SSE stream too), and the upstream
 * request ends when the browser goes away.
 */
export async function forwardRequest(
  req: Request,
  target: ForwardTarget,
  self: { replicaId: string; consoleToken: string },
  /** The body, when the route has already read it (sent as JSON). */
  json?: unknown,
): Promise<Response> {
  if (req.headers.has(FORWARDED_BY))
    // The owner moved while the request was on its way: the browser retries and lands right.
    throw new ApiError("backend_down", "This backend is moving to another replica; try again");
  const incoming = new URL(req.url);
  const url = new URL(incoming.pathname + incoming.search, target.url);
  const headers = new Headers();
  for (const [k, v] of req.headers) if (!DROPPED_REQUEST.has(k.toLowerCase())) headers.set(k, v);
  // Where the browser reached the console (a share's link is made from it), as it would be here.
  if (!headers.has("x-forwarded-host") && req.headers.get("host"))
    headers.set("x-forwarded-host", req.headers.get("host")!);
  if (!headers.has("x-forwarded-proto")) headers.set("x-forwarded-proto", incoming.protocol.replace(/:$/, ""));
  headers.set("authorization", `Bearer ${self.consoleToken}`);
  headers.set(FORWARDED_BY, self.replicaId);
  if (json !== undefined) headers.set("content-type", "application/json");
  const body = json !== undefined ? JSON.stringify(json) : req.body;
  const hasBody = req.method !== "GET" && req.method !== "HEAD" && body !== null;
  let upstream: Response;
  try {
    upstream = await fetch(url, {
      method: req.method,
      headers,
      redirect: "manual",
      signal: req.signal,
      ...(hasBody ? { body, duplex: "half" } : {}),
    } as RequestInit);
  } catch (err) {
    log.warn("could not reach the replica that runs this backend", {
      replica: target.replicaId,
      error: describeError(err),
    });
    throw new ApiError("backend_down", "The replica that runs this backend does not answer; try again");
  }
  const out = new Headers();
  for (const [k, v] of upstream.headers) if (!DROPPED_RESPONSE.has(k.toLowerCase())) out.set(k, v);
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: out });
}
