import "server-only";
import { clientAddress } from "../auth/client-address";
import { app } from "../app-access";
import { ApiError } from "../errors";
import { ShareService } from "./service";
import { shareFailureLimits } from "./limits";

const g = globalThis as typeof globalThis & {
  __switchboardShares?: ShareService;
};

export { SHARE_STREAMS_TOTAL } from "./stream-quota";
export { shareStreamIdleMs } from "./limits";

/** The share service, one per process (on globalThis like the app, so every route bundle shares it). */
export async function shares(): Promise<ShareService> {
  const a = await app();
  return (g.__switchboardShares ??= new ShareService(a.store, a.hub, a.backends, {
    remote: a.sharing.forwarding,
    sharedFailures: a.sharing.sharedFailures,
    ...shareFailureLimits(),
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

/** A slot for one more public share stream from this request's address, or 429. */
export async function acquireShareStream(headers: Headers): Promise<() => void> {
  const r = (await app()).sharing.streams.acquire(shareClient(headers));
  if (r.ok) return r.release;
  throw new ApiError(
    "rate_limited",
    r.scope === "client"
      ? "Too many share streams are open from this address: close some share pages"
      : "Too many share streams are open: try again later",
    { retryAfterSeconds: 5 },
  );
}
