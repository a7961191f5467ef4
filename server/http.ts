import "server-only";
import type { ZodType, z } from "zod";
import type { PersonRef } from "@/lib/model";
import { ACTING_PERSON_HEADER, actingPerson, decodeActingPerson, setActingPerson } from "./auth/acting-person";
import { actorOf, auditedRule, auditRoute } from "./auth/audit";
import { principalOf } from "./auth/console-auth";
import { redactSecrets } from "./redaction/redact";
import { readBodyBytes } from "./body";
import type { SseSink } from "./hub/sse";
import { ApiError, describeError, isApiError } from "./errors";
import { log } from "./log";

export const MAX_BODY_BYTES = 1_000_000;

export function json(data: unknown, init?: ResponseInit): Response {
  return Response.json(data, init);
}

export function errorResponse(err: unknown): Response {
  if (isApiError(err)) {
    const body = {
      error: {
        code: err.code,
        message: redactSecrets(err.message),
        ...(err.details !== undefined ? { details: err.details } : {}),
      },
    };
    const headers: Record<string, string> = {};
    const retryAfter = (err.details as { retryAfter?: unknown } | undefined)?.retryAfter;
    if (err.code === "rate_limited" && typeof retryAfter === "number") headers["retry-after"] = String(retryAfter);
    return Response.json(body, { status: err.status, headers });
  }
  log.error("unhandled route error", { error: redactSecrets(describeError(err)) });
  return Response.json({ error: { code: "internal", message: "Internal error" } }, { status: 500 });
}

type RouteCtx<P> = { params: Promise<P> };

/** Who a request acts for (server/auth/acting-person.ts): the signed-in person, or the one a replica named. */
export function requestPerson(req: Request): PersonRef | undefined {
  return actingPerson(req);
}

function personOfPrincipal(headers: Headers): PersonRef | undefined {
  const who = principalOf(headers);
  if (!who) return undefined;
  const { id, name } = actorOf(who);
  return { id, name };
}

/**
 * Sends a request another console serves (replica mode: a backend it runs, a live stream it holds)
 * there, or answers undefined to serve it here.
 */
export type RouteForwarder = (req: Request, params: Readonly<Record<string, unknown>>) => Promise<Response | undefined>;

/** The header a request signed by another console (replica mode) carries. */
export const PEER_SIGNATURE_HEADER = "x-switchboard-replica-signature";

/**
 * Requests between consoles (replica mode, docs/replicas.md): one signed by another console is
 * checked before anything reads it, and one another console serves is sent there. Given once by the
 * composition root (server/app.ts, `servePeerRequests`); kept on globalThis because each route is a
 * bundle of its own.
 */
export interface PeerRequests {
  /** Checks a request signed by another console (signature, nonce, body): the request to serve; 401 when a check fails. */
  accept(req: Request): Promise<Request>;
  forward: RouteForwarder;
  /**
   * A session's events when another console runs its backend: what attaches a subscriber to the
   * owner's stream (after `after`). Undefined when it is served here, or the backend is unknown.
   */
  events(backendId: string, sessionId: string, after: number | undefined): Promise<EventsOpener | undefined>;
}

/** Attaches a subscriber to a session's events; returns its detach. */
export type EventsOpener = (sink: SseSink) => () => void;

/** One console: it has no peers, so a request signed as from one is refused, and nothing is forwarded. */
export const noPeers: PeerRequests = {
  accept: async () => {
    throw new ApiError("unauthorized", "The replica signature is not valid");
  },
  forward: async () => undefined,
  events: async () => undefined,
};

const peering = globalThis as typeof globalThis & { __switchboardPeers?: PeerRequests };

/** The requests between consoles this one serves (none until the composition root gives them). */
export function peerRequests(): PeerRequests {
  return peering.__switchboardPeers ?? noPeers;
}

/** Called by the composition root when it builds the console. */
export function servePeerRequests(peers: PeerRequests): void {
  peering.__switchboardPeers = peers;
}

/**
 * Wraps a route handler: every thrown value becomes the JSON error shape; nothing leaks a stack. The
 * proxy has already checked the caller's role (server/auth/permissions.ts); an audited action that
 * succeeds is recorded here, once, on the replica the person reached (a forwarded copy is not).
 */
export function route<P = Record<string, string>>(
  fn: (req: Request, params: P) => Promise<Response>,
): (req: Request, ctx: RouteCtx<P>) => Promise<Response> {
  return async (incoming, ctx) => {
    try {
      // A request another console signed: its signature, nonce and body are checked here before
      // anything else reads it (401 when one fails).
      const peers = peerRequests();
      const signed = incoming.headers.has(PEER_SIGNATURE_HEADER);
      const req = signed ? await peers.accept(incoming) : incoming;
      const params = ctx?.params ? await ctx.params : ({} as P);
      const audited = signed ? undefined : auditedRule(req);
      const body = audited?.detail && req.body ? req.clone() : undefined;
      const done = async (res: Response) => {
        if (audited && res.ok) await auditRoute(req, audited, (params ?? {}) as Record<string, unknown>, body, res);
        return res;
      };
      setActingPerson(
        req,
        signed ? decodeActingPerson(req.headers.get(ACTING_PERSON_HEADER)) : personOfPrincipal(req.headers),
      );
      if (params && typeof params === "object") {
        const forwarded = await peers.forward(req, params as Record<string, unknown>);
        if (forwarded) return await done(forwarded);
      }
      return await done(await fn(req, params));
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/** Reads and validates a JSON body, enforcing the size limit (413) and the schema (400). */
export async function readBody<S extends ZodType>(
  req: Request,
  schema: S,
  maxBytes = MAX_BODY_BYTES,
): Promise<z.infer<S>> {
  const text = new TextDecoder().decode(await readBodyBytes(req, maxBytes));
  let data: unknown = {};
  if (text.trim() !== "") {
    try {
      data = JSON.parse(text);
    } catch {
      throw ApiError.badRequest("Body is not valid JSON");
    }
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "body");
  return parsed.data;
}

/**
 * Reads and validates the query string (400 with the issues). Every parameter is validated as sent:
 * with a strict schema an unknown one is refused, and so is a parameter given more than once
 * (`?limit=1&limit=500` would otherwise be decided by whichever the parser keeps).
 */
export function readQuery<S extends ZodType>(req: Request, schema: S): z.infer<S> {
  const url = new URL(req.url);
  const entries = new Map<string, string>();
  const repeated: string[] = [];
  for (const [k, v] of url.searchParams) {
    if (entries.has(k) && !repeated.includes(k)) repeated.push(k);
    entries.set(k, v);
  }
  if (repeated.length) {
    const issues = repeated.map((k) => ({ path: k, message: "Given more than once", code: "duplicate_parameter" }));
    throw ApiError.badRequest(`Invalid query: ${repeated[0]}: given more than once`, { issues });
  }
  // Object.fromEntries defines own properties, so `?__proto__=x` is a key like any other (refused).
  const parsed = schema.safeParse(Object.fromEntries(entries));
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "query");
  return parsed.data;
}

/**
 * Where an event stream resumes: the `Last-Event-ID` header (what a reconnecting client sends), or
 * else `?after=` from the query (already validated by the route's schema). 400 on a malformed header.
 */
export function resumeCursor(req: Request, queryAfter?: number): number | undefined {
  const header = req.headers.get("last-event-id");
  if (header === null || header.trim() === "") return queryAfter;
  const n = Number(header.trim());
  if (!/^\d{1,16}$/.test(header.trim()) || !Number.isSafeInteger(n))
    throw ApiError.badRequest("Last-Event-ID must be a non-negative integer");
  return n;
}

export { describeError };
