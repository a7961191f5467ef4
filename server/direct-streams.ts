import "server-only";
import type http from "node:http";
import { NextRequest } from "next/server";
import { EmptyQuery, EventsQuery } from "@/lib/api";
import { proxy } from "@/proxy";
import { app, sessionEvents } from "./app-access";
import { stampPeerAddress } from "./auth/client-address";
import { globalHello, liveOpener } from "./live";
import { acquireShareStream, shareStreamIdleMs } from "./shares";
import { PUBLIC_HEADERS } from "./shares/public";
import { type EventsOpener, PEER_SIGNATURE_HEADER, readQuery, resumeCursor } from "./http";
import { sseToNode } from "./hub/sse";
import { onServerRequest, type ServerRequestHook } from "./server-requests";

/*
 * The console's long-lived event streams served straight from the Node server, before Next's
 * request pipeline (docs/architecture.md, "Login and request policy"): a session's events
 * (`GET /api/backends/:b/sessions/:s/events`) and the cross-session events (`GET /api/events`), for
 * API clients, and a browser's live stream (`GET /api/live`, the one all its console tabs share;
 * `GET /api/shares/public/live` on share pages). Through Next, every open stream kept its
 * request pipeline alive (~86 KB of heap per subscriber: its suspended async functions and what they
 * hold) and every frame went through a web WritableStream into the socket; here a subscriber is its
 * socket, its response and the hub's sink.
 *
 * What is served here is exactly what the proxy admits (proxy.ts is asked, with the request's own
 * headers, and its security headers are the answer's) and what the route would serve. Everything
 * else goes on to Next unchanged, where the proxy and the route answer it as before: a refusal
 * (401, 403), a bad query or Last-Event-ID (400), an unknown backend (404) or one that is down, a
 * console holding as many live streams as it may or a share viewer's address over its quota (429),
 * and any request another replica signed.
 */

const EVENTS_PATH = /^\/api\/backends\/([^/]+)\/sessions\/([^/]+)\/events$/;
/** The streams at a fixed path, which take no query. */
const FIXED: Readonly<Record<string, "live" | "share-live" | "global">> = {
  "/api/live": "live",
  "/api/shares/public/live": "share-live",
  "/api/events": "global",
};

/** A stream this module may serve. */
export type DirectStream =
  | { kind: "events"; backendId: string; sessionId: string; after: number | undefined }
  | { kind: "global"; after: number | undefined }
  | { kind: "live" }
  /** A share page's: public, a slot of the share stream quota per client address (from `headers`). */
  | { kind: "share-live"; headers: Headers };

/** A stream to serve: what it attaches to, with the options and headers of its route. */
export interface DirectOpen {
  open: EventsOpener;
  idleMs?: number;
  headers?: Readonly<Record<string, string>>;
  /** Gives back what opening took, when the stream is not served after all (the client left). */
  cancel?: () => void;
}

export interface DirectStreamDeps {
  /** The proxy's security headers when it lets the request through to its route, else undefined. */
  admit(req: NextRequest): Record<string, string> | undefined;
  /** What the route would serve; undefined (or a throw) leaves the request to Next. */
  open(stream: DirectStream): Promise<DirectOpen | undefined>;
}

/** The proxy's decision: a request it lets through carries `x-middleware-next`. */
export function proxyAdmits(req: NextRequest): Record<string, string> | undefined {
  const decision = proxy(req);
  if (decision.headers.get("x-middleware-next") !== "1") return undefined;
  const headers: Record<string, string> = {};
  decision.headers.forEach((v, k) => {
    if (!k.startsWith("x-middleware-")) headers[k] = v;
  });
  return headers;
}

async function openStream(stream: DirectStream): Promise<DirectOpen | undefined> {
  if (stream.kind === "events") return { open: await sessionEvents(stream.backendId, stream.sessionId, stream.after) };
  const { hub, backends } = await app();
  if (stream.kind === "live") {
    const open = liveOpener("console");
    return open && { open };
  }
  if (stream.kind === "share-live") {
    const release = await acquireShareStream(stream.headers);
    const open = liveOpener("share", release);
    if (!open) {
      release();
      return undefined;
    }
    return { open, idleMs: shareStreamIdleMs(), headers: PUBLIC_HEADERS, cancel: release };
  }
  // As the route does: backends without replay re-read what is pending.
  backends.refreshInterrupts();
  const hello = globalHello(backends);
  return { open: (sink) => hub.subscribeGlobal(sink, hello, stream.after) };
}

const defaultDeps: DirectStreamDeps = { admit: proxyAdmits, open: openStream };

/** The request's headers as Next builds them for the proxy and the routes: from the parsed ones (with the peer stamp). */
function webHeaders(req: http.IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    try {
      if (Array.isArray(v)) for (const one of v) h.append(k, one);
      else h.set(k, v);
    } catch {
      // a header the fetch standard refuses: Next would not see it either
    }
  }
  return h;
}

/** The stream a request asks for and the proxy's headers, when this module may serve it; undefined leaves it to Next. */
export function directStreamRequest(
  req: http.IncomingMessage,
  admit: DirectStreamDeps["admit"],
): { stream: DirectStream; headers: Record<string, string> } | undefined {
  if (req.method !== "GET" || !req.url) return undefined;
  const q = req.url.indexOf("?");
  const pathname = q < 0 ? req.url : req.url.slice(0, q);
  const fixed = Object.hasOwn(FIXED, pathname) ? FIXED[pathname] : undefined;
  const m = fixed ? null : EVENTS_PATH.exec(pathname);
  if (!m && !fixed) return undefined;
  try {
    // Served before the stamping listener runs: the share quota counts the socket's address.
    stampPeerAddress(req);
    const headers = webHeaders(req);
    if (headers.has(PEER_SIGNATURE_HEADER)) return undefined;
    const next = new NextRequest(new URL(req.url, "http://localhost"), { headers });
    const admitted = admit(next);
    if (!admitted) return undefined;
    if (fixed) {
      readQuery(next, EmptyQuery);
      const stream: DirectStream =
        fixed === "global"
          ? { kind: "global", after: resumeCursor(next) }
          : fixed === "live"
            ? { kind: "live" }
            : { kind: "share-live", headers };
      return { stream, headers: admitted };
    }
    if (!m) return undefined;
    const after = resumeCursor(next, readQuery(next, EventsQuery).after);
    const stream: DirectStream = {
      kind: "events",
      backendId: decodeURIComponent(m[1]!),
      sessionId: decodeURIComponent(m[2]!),
      after,
    };
    return { stream, headers: admitted };
  } catch {
    return undefined; // a malformed path, query or cursor: Next answers it
  }
}

/**
 * Serves the request when it may (true), or leaves it alone (false). `toNext` is called later
 * instead when opening the stream fails before anything was written, so Next answers the error.
 */
export function serveStreamDirectly(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  toNext: () => void,
  deps: DirectStreamDeps = defaultDeps,
): boolean {
  const r = directStreamRequest(req, deps.admit);
  if (!r) return false;
  const handOver = () => {
    if (!res.headersSent && !res.destroyed) toNext();
  };
  deps.open(r.stream).then((opened) => {
    if (!opened) handOver();
    else if (req.destroyed || res.destroyed) opened.cancel?.();
    else {
      const { open, idleMs, headers } = opened;
      sseToNode(res, { open, ...(idleMs !== undefined ? { idleMs } : {}) }, { ...r.headers, ...headers });
    }
  }, handOver);
  return true;
}

/** Every HTTP server of this process serves these streams before its request listeners (instrumentation.ts). */
export function installDirectStreams(): void {
  onServerRequest(serveDefault);
}

const serveDefault: ServerRequestHook = (req, res, toNext) => serveStreamDirectly(req, res, toNext);
