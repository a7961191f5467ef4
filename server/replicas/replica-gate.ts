import "server-only";
import { readBodyBytes } from "../body";
import { ApiError } from "../errors";
import { log } from "../log";
import { readReplicaConfig } from "./config";
import {
  audienceOf,
  bodyMatches,
  hasReplicaSignature,
  NonceLedger,
  type ReplicaKeys,
  type VerifiedClaims,
  verifySignature,
} from "./replica-auth";

/**
 * Where a replica lets another's signed request in (./replica-auth.ts): the proxy admits a signed
 * request to an API path as it admits a logged-in one (`admitReplicaRequest`), and the route checks
 * it again, takes its nonce and compares the body with the signed hash (`acceptReplicaRequest`, in
 * `route()`); `fromReplica` says whether a request is one (the public share routes' quota marker).
 * Process-wide on globalThis: the proxy and the routes are separate bundles of one process.
 */
interface Gate {
  keys: ReplicaKeys;
  /** This replica's origin (`SWITCHBOARD_REPLICA_URL`): what a request to it is signed for. */
  audience: string;
  nonces: NonceLedger;
}

/** The largest body a forwarded request may carry (the prompt route's own limit is below it). */
export const MAX_FORWARDED_BODY_BYTES = 16_000_000;

const g = globalThis as typeof globalThis & {
  __switchboardReplicaGate?: Gate | null;
  __switchboardReplicaVerified?: WeakMap<Request, boolean>;
};
const verified = (g.__switchboardReplicaVerified ??= new WeakMap<Request, boolean>());

/** Sets (or clears) what signed requests are checked against; read from the environment otherwise. */
export function setReplicaGate(opts: { keys: ReplicaKeys; replicaUrl: string } | undefined): void {
  g.__switchboardReplicaGate = opts
    ? {
        keys: opts.keys,
        audience: audienceOf(opts.replicaUrl),
        nonces: g.__switchboardReplicaGate?.nonces ?? new NonceLedger(),
      }
    : null;
}

function gate(): Gate | undefined {
  if (g.__switchboardReplicaGate === undefined) {
    try {
      const c = readReplicaConfig();
      setReplicaGate(
        c.redisUrl && c.replicaUrl && c.replicaKeys ? { keys: c.replicaKeys, replicaUrl: c.replicaUrl } : undefined,
      );
    } catch {
      setReplicaGate(undefined); // the start refuses the configuration with its sentence
    }
  }
  return g.__switchboardReplicaGate ?? undefined;
}

let refusedCount = 0;
function refused(reason: string, req: { method: string; pathQuery: string; headers: Headers }) {
  if (refusedCount++ % 100 === 0)
    log.warn("refused a request signed as from a replica", {
      reason,
      method: req.method,
      path: req.pathQuery.split("?")[0]?.slice(0, 200),
      refused: refusedCount,
    });
}

function claimsOf(req: { method: string; pathQuery: string; headers: Headers }): VerifiedClaims | undefined {
  if (!hasReplicaSignature(req.headers)) return undefined;
  const gt = gate();
  if (!gt) return undefined;
  const claims = verifySignature(gt.keys, gt.audience, req);
  if (!claims) refused("bad signature or out of date", req);
  return claims;
}

/** The proxy's check: a request another replica signed for this one, never seen before. */
export function admitReplicaRequest(method: string, pathQuery: string, headers: Headers): boolean {
  const req = { method, pathQuery, headers };
  const claims = claimsOf(req);
  if (!claims) return false;
  if (gate()!.nonces.admit(claims.nonce)) return true;
  refused("replayed", req);
  return false;
}

const pathQueryOf = (req: Request) => {
  const u = new URL(req.url);
  return u.pathname + u.search;
};

/**
 * A route's check of a request that carries a replica signature: the signature, a nonce not taken
 * before, and the body equal to the signed hash. The request to serve (its body read and checked,
 * marked as from a replica); 401 when any check fails.
 */
export async function acceptReplicaRequest(req: Request): Promise<Request> {
  const view = { method: req.method, pathQuery: pathQueryOf(req), headers: req.headers };
  const claims = claimsOf(view);
  if (!claims) throw new ApiError("unauthorized", "The replica signature is not valid");
  if (!gate()!.nonces.take(claims.nonce)) {
    refused("replayed", view);
    throw new ApiError("unauthorized", "The replica signature is not valid");
  }
  const body =
    req.method === "GET" || req.method === "HEAD"
      ? new Uint8Array()
      : await readBodyBytes(req, MAX_FORWARDED_BODY_BYTES);
  if (!bodyMatches(claims, body)) {
    refused("body does not match", view);
    throw new ApiError("unauthorized", "The replica signature is not valid");
  }
  const checked = new Request(req.url, {
    method: req.method,
    headers: req.headers,
    signal: req.signal,
    ...(body.length ? { body } : {}),
  });
  verified.set(checked, true);
  return checked;
}

/**
 * Did another replica send this request (checked: signature, nonce, no body)? What the share routes
 * ask before leaving the quota or the view count to the replica the viewer is on. Never the console
 * token: a browser holding it is still a viewer.
 */
export function fromReplica(req: Request): boolean {
  const known = verified.get(req);
  if (known !== undefined) return known;
  let ok = false;
  const view = { method: req.method, pathQuery: pathQueryOf(req), headers: req.headers };
  const claims = claimsOf(view);
  if (claims && (req.method === "GET" || req.method === "HEAD") && bodyMatches(claims, new Uint8Array())) {
    ok = gate()!.nonces.take(claims.nonce);
    if (!ok) refused("replayed", view);
  }
  verified.set(req, ok);
  return ok;
}
