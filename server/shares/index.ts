import "server-only";
import { clientAddress } from "../auth/client-address";
import { app } from "../app-access";
import { ApiError } from "../errors";
import { ShareService } from "./service";
import { shareStreamQuota } from "./stream-quota";

const g = globalThis as typeof globalThis & {
  __switchboardShares?: ShareService;
};

export { SHARE_STREAMS_TOTAL, shareStreamQuota } from "./stream-quota";

function intEnv(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** The share service, one per process (on globalThis like the app, so every route bundle shares it). */
export async function shares(): Promise<ShareService> {
  const a = await app();
  return (g.__switchboardShares ??= new ShareService(a.store, a.hub, a.backends, {
    ...(a.replicas
      ? {
          remote: a.replicas.shareRemote,
          sharedFailures: a.replicas.sharedFailures(
            "share-tokens",
            intEnv("SWITCHBOARD_SHARE_FAILURE_LIMIT", 30),
            intEnv("SWITCHBOARD_SHARE_FAILURE_WINDOW_MS", 60_000),
          ),
        }
      : {}),
    failureLimit: intEnv("SWITCHBOARD_SHARE_FAILURE_LIMIT", 30),
    failureWindowMs: intEnv("SWITCHBOARD_SHARE_FAILURE_WINDOW_MS", 60_000),
  }));
}

/** The address a share request is rate limited by (see docs/sharing.md on proxies). */
export function shareClient(headers: Headers): string {
  return clientAddress(headers);
}

/**
 * The origin the console was reached at, for the link in `POST /api/shares`' answer: the Host the
 * browser used (Next's `req.url` names its own bind host instead).
 */
export function requestOrigin(req: Request): string {
  const h = req.headers;
  const host = h.get("x-forwarded-host")?.split(",")[0]?.trim() || h.get("host");
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() || new URL(req.url).protocol.replace(/:$/, "");
  return host ? `${proto}://${host}` : new URL(req.url).origin;
}

/** How long a public share stream may carry nothing but heartbeats before it is ended (`SWITCHBOARD_SHARE_STREAM_IDLE_MS`, 30 minutes). */
export function shareStreamIdleMs(): number {
  return intEnv("SWITCHBOARD_SHARE_STREAM_IDLE_MS", 30 * 60_000);
}

/** A slot for one more public share stream from this request's address, or 429. */
export function acquireShareStream(headers: Headers): () => void {
  const r = shareStreamQuota().acquire(shareClient(headers));
  if (r.ok) return r.release;
  throw new ApiError(
    "rate_limited",
    r.scope === "client"
      ? "Too many share streams are open from this address: close some share pages"
      : "Too many share streams are open: try again later",
    { retryAfterSeconds: 5 },
  );
}
