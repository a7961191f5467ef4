import "server-only";

/**
 * How the proxy lets in a request another console signed (replica mode, docs/replicas.md): as it
 * lets in a logged-in one, for the API only. Given by the composition root (server/app.ts) when it
 * builds the console, before the first request; process-wide on globalThis because the proxy and the
 * routes are separate bundles. One console admits none.
 */
export interface PeerAdmission {
  /** A request another console signed for this one, never seen before? */
  admit(method: string, pathQuery: string, headers: Headers): boolean;
}

const g = globalThis as typeof globalThis & { __switchboardPeerAdmission?: PeerAdmission | undefined };

/** Called by the composition root: how signed requests are admitted from now on (undefined: none are). */
export function admitPeers(admission: PeerAdmission | undefined): void {
  g.__switchboardPeerAdmission = admission;
}

/** The proxy's check of a request signed by another console. */
export function admittedPeer(method: string, pathQuery: string, headers: Headers): boolean {
  return g.__switchboardPeerAdmission?.admit(method, pathQuery, headers) ?? false;
}
