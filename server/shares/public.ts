import "server-only";
import type { SharedSnapshot } from "@/lib/api";
import { ApiError, describeError, isApiError } from "../errors";
import { errorResponse } from "../http";
import { log } from "../log";
import { shareClient, shares } from "./index";

/** Headers on everything the public side of a share answers. */
export const PUBLIC_HEADERS: Record<string, string> = {
  "cache-control": "no-store",
  "x-robots-tag": "noindex, nofollow",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

export function withPublicHeaders(res: Response): Response {
  for (const [k, v] of Object.entries(PUBLIC_HEADERS)) res.headers.set(k, v);
  return res;
}

type TokenParams = { token: string };

/** Errors a viewer may see as they are; anything else becomes a bare 500. */
const SAFE_CODES = new Set(["not_found", "gone", "rate_limited", "bad_request", "backend_down"]);

/**
 * Wraps a public share route: the error shape of every route, the public headers, `Retry-After`
 * on 429, and nothing about the console or its backends in any answer.
 */
export function publicRoute(fn: (req: Request, token: string) => Promise<Response>) {
  return async (req: Request, ctx: { params: Promise<TokenParams> }): Promise<Response> => {
    let res: Response;
    try {
      const { token } = await ctx.params;
      res = await fn(req, token);
    } catch (err) {
      const known = isApiError(err) && SAFE_CODES.has(err.code);
      if (!known) log.error("share route error", { error: describeError(err) });
      const safe = known ? err : new ApiError("internal", "Internal error");
      res = errorResponse(safe);
      if (safe.code === "rate_limited") {
        const d = safe.details as { retryAfterSeconds?: number } | undefined;
        res.headers.set("retry-after", String(d?.retryAfterSeconds ?? 60));
      }
    }
    return withPublicHeaders(res);
  };
}

export type SharedPageResult =
  | { ok: true; snapshot: SharedSnapshot }
  | { ok: false; status: 404 | 410 | 429 | 503; message: string };

/** What the server-rendered share page shows for a token. */
export async function loadSharedPage(token: string, headers: Headers): Promise<SharedPageResult> {
  try {
    const svc = await shares();
    const share = svc.resolve(token, shareClient(headers));
    const snapshot = await svc.snapshot(share, token);
    svc.touch(share);
    return { ok: true, snapshot };
  } catch (err) {
    if (isApiError(err)) {
      const status =
        err.code === "gone" ? 410 : err.code === "rate_limited" ? 429 : err.code === "backend_down" ? 503 : 404;
      return {
        ok: false,
        status,
        message: status === 404 ? "This share link does not exist or was revoked." : err.message,
      };
    }
    return { ok: false, status: 503, message: "The shared session is temporarily unavailable." };
  }
}
