import "server-only";
import { ACTING_PERSON_HEADER, actingPerson, encodeActingPerson } from "../auth/acting-person";
import { readBodyBytes } from "../body";
import { ApiError, describeError, isApiError } from "../errors";
import { log } from "../log";
import type { PeerPolicy } from "./peers";
import { FORWARDED_BY, type ReplicaKeys, SIGNATURE_HEADERS, signRequest } from "./replica-auth";
import { MAX_FORWARDED_BODY_BYTES } from "./replica-gate";

export { FORWARDED_BY };
/** Did another replica send this request (its signature checked)? See ./replica-gate.ts. */
export { fromReplica } from "./replica-gate";

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
  FORWARDED_BY,
  ACTING_PERSON_HEADER,
  ...Object.values(SIGNATURE_HEADERS),
]);
/** Answer headers the fetch already undid (decompression, chunking). */
const DROPPED_RESPONSE = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-encoding",
  "content-length",
]);

export interface ForwardTarget {
  /** The owner's base URL (`SWITCHBOARD_REPLICA_URL` of that replica). */
  url: string;
  replicaId: string;
}

/** What a replica sends other replicas with: its id, the replicas' key, and the peers it may contact. */
export interface ReplicaSelf {
  replicaId: string;
  keys: ReplicaKeys;
  peers: PeerPolicy;
}

/**
 * A request from this replica to another (forwarded, or a follow of its stream): only to an allowed
 * peer (./peers.ts), signed with the replicas' key for that one request (./replica-auth.ts), never
 * with the console token or a browser's cookie, and never following a redirect.
 */
export async function replicaFetch(
  self: ReplicaSelf,
  target: ForwardTarget,
  pathQuery: string,
  init: {
    method?: string;
    headers?: Headers | Record<string, string>;
    body?: Uint8Array<ArrayBuffer>;
    signal?: AbortSignal;
  },
): Promise<Response> {
  if (!self.peers.allows(target.url)) {
    log.warn("refused to contact a replica that is not an allowed peer (SWITCHBOARD_REPLICAS)", {
      replica: target.replicaId,
    });
    throw new ApiError("backend_down", "The replica that runs this backend does not answer; try again");
  }
  const method = (init.method ?? "GET").toUpperCase();
  const url = new URL(pathQuery, target.url);
  const headers = new Headers(init.headers);
  headers.delete("authorization");
  headers.delete("cookie");
  const body = method === "GET" || method === "HEAD" ? undefined : init.body;
  const person = headers.get(ACTING_PERSON_HEADER) ?? "";
  for (const [k, v] of Object.entries(signRequest(self.keys, self.replicaId, method, url, body, Date.now(), person)))
    headers.set(k, v);
  return fetch(url, {
    method,
    headers,
    redirect: "manual",
    ...(init.signal ? { signal: init.signal } : {}),
    ...(body?.length ? { body } : {}),
  });
}

/**
 * Sends a request for a backend this replica does not run to the replica that does
 * (docs/architecture.md, "Replicas"): same method, path, query and body; the browser's cookie,
 * Origin and Authorization dropped, and the request signed for that replica with the replicas' key
 * (./replica-auth.ts), so the owner's proxy admits it as this one admitted the browser. The body is
 * read here first (it is signed). The answer streams back as it comes (an SSE stream too), and the
 * upstream request ends when the browser goes away.
 */
export async function forwardRequest(
  req: Request,
  target: ForwardTarget,
  self: ReplicaSelf,
  /** The body, when the route has already read it (sent as JSON). */
  json?: unknown,
): Promise<Response> {
  if (req.headers.has(FORWARDED_BY))
    // The owner moved while the request was on its way: the browser retries and lands right.
    throw new ApiError("backend_down", "This backend is moving to another replica; try again");
  const incoming = new URL(req.url);
  const headers = new Headers();
  for (const [k, v] of req.headers) if (!DROPPED_REQUEST.has(k.toLowerCase())) headers.set(k, v);
  // Who the request acts for, as this replica decided it (never a header the browser sent).
  const who = actingPerson(req);
  if (who) headers.set(ACTING_PERSON_HEADER, encodeActingPerson(who));
  // Where the browser reached the console (a share's link is made from it), as it would be here.
  if (!headers.has("x-forwarded-host") && req.headers.get("host"))
    headers.set("x-forwarded-host", req.headers.get("host")!);
  if (!headers.has("x-forwarded-proto")) headers.set("x-forwarded-proto", incoming.protocol.replace(/:$/, ""));
  if (json !== undefined) headers.set("content-type", "application/json");
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const body = !hasBody
    ? undefined
    : json !== undefined
      ? new TextEncoder().encode(JSON.stringify(json))
      : await readBodyBytes(req, MAX_FORWARDED_BODY_BYTES);
  let upstream: Response;
  try {
    upstream = await replicaFetch(self, target, incoming.pathname + incoming.search, {
      method: req.method,
      headers,
      signal: req.signal,
      ...(body ? { body } : {}),
    });
  } catch (err) {
    if (isApiError(err)) throw err;
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
